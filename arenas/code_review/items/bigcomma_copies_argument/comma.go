// Package humanize formats numbers for people.
package humanize

import (
	"math/big"
	"strconv"
	"strings"
)

// BigComma produces a string form of the given big.Int in base 10
// with commas after every three orders of magnitude.
func BigComma(bin *big.Int) string {
	b := new(big.Int).Set(bin)
	sign := ""
	if b.Sign() < 0 {
		sign = "-"
		b.Abs(b)
	}

	athousand := big.NewInt(1000)
	mod := &big.Int{}
	parts := []string{}
	for b.Cmp(athousand) >= 0 {
		b.DivMod(b, athousand, mod)
		part := strconv.FormatInt(mod.Int64(), 10)
		switch len(part) {
		case 2:
			part = "0" + part
		case 1:
			part = "00" + part
		}
		parts = append([]string{part}, parts...)
	}
	parts = append([]string{strconv.FormatInt(b.Int64(), 10)}, parts...)
	return sign + strings.Join(parts, ",")
}
