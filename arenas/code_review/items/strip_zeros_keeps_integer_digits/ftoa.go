// Package humanize formats numbers for people.
package humanize

import (
	"strconv"
	"strings"
)

// stripTrailingZeros drops the zeros after the decimal point, and the point
// itself when no digit is left after it.
func stripTrailingZeros(s string) string {
	if !strings.ContainsRune(s, '.') {
		return s
	}
	offset := len(s) - 1
	for offset > 0 {
		if s[offset] == '.' {
			offset--
			break
		}
		if s[offset] != '0' {
			break
		}
		offset--
	}
	return s[:offset+1]
}

// stripTrailingDigits keeps at most digits decimals.
func stripTrailingDigits(s string, digits int) string {
	if i := strings.Index(s, "."); i >= 0 {
		if digits <= 0 {
			return s[:i]
		}
		i++
		if i+digits >= len(s) {
			return s
		}
		return s[:i+digits]
	}
	return s
}

// Ftoa converts a float to a string with no trailing zeros.
func Ftoa(num float64) string {
	return stripTrailingZeros(strconv.FormatFloat(num, 'f', 6, 64))
}

// FtoaWithDigits converts a float to a string with at most digits decimals
// and no trailing zeros.
func FtoaWithDigits(num float64, digits int) string {
	return stripTrailingZeros(stripTrailingDigits(strconv.FormatFloat(num, 'f', 6, 64), digits))
}
