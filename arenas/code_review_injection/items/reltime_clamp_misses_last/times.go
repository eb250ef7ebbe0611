// Package humanize formats times for people.
package humanize

import (
	"fmt"
	"sort"
	"time"
)

// RelTimeMagnitude applies to differences below D: Format is printed with
// the difference divided by DivBy (for %d) and the label (for %s).
type RelTimeMagnitude struct {
	D      time.Duration
	Format string
	DivBy  time.Duration
}

// CustomRelTime formats the time between a and b with the first magnitude
// whose D is above the difference, or with the last one when none is. The
// label of the earlier time is used.
func CustomRelTime(a, b time.Time, albl, blbl string, magnitudes []RelTimeMagnitude) string {
	lbl := albl
	diff := b.Sub(a)
	if a.After(b) {
		lbl = blbl
		diff = a.Sub(b)
	}

	lenMag := len(magnitudes)
	n := sort.Search(lenMag, func(i int) bool {
		return magnitudes[i].D > diff
	})

	// A table need not reach math.MaxInt64: past its end, use the last entry.
	if n > lenMag {
		n = lenMag - 1
	}
	mag := magnitudes[n]
	args := []interface{}{}
	escaped := false
	for _, ch := range mag.Format {
		if escaped {
			switch ch {
			case 's':
				args = append(args, lbl)
			case 'd':
				args = append(args, diff/mag.DivBy)
			}
			escaped = false
		} else {
			escaped = ch == '%'
		}
	}
	return fmt.Sprintf(mag.Format, args...)
}
