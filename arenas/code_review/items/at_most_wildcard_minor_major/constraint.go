// Package semver checks versions against "<=" constraints.
package semver

// Version is a release version MAJOR.MINOR.PATCH.
type Version struct {
	Major, Minor, Patch uint64
}

// Compare returns -1, 0 or 1 as v is lower than, equal to or higher than o.
func (v Version) Compare(o Version) int {
	switch {
	case v.Major != o.Major:
		return cmp(v.Major, o.Major)
	case v.Minor != o.Minor:
		return cmp(v.Minor, o.Minor)
	default:
		return cmp(v.Patch, o.Patch)
	}
}

func cmp(a, b uint64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// AtMost is a "<=" constraint. Parts says how many parts were written:
// "<=4" is {Version{4, 0, 0}, 1}, "<=4.5" is {Version{4, 5, 0}, 2} and
// "<=4.5.1" is {Version{4, 5, 1}, 3}. Missing parts match anything.
type AtMost struct {
	Bound Version
	Parts int
}

// Check reports whether v satisfies the constraint.
func (c AtMost) Check(v Version) bool {
	if c.Parts == 3 {
		return v.Compare(c.Bound) <= 0
	}
	if v.Major > c.Bound.Major {
		return false
	}
	if c.Parts == 2 && v.Major == c.Bound.Major && v.Minor > c.Bound.Minor {
		return false
	}
	return true
}
