package semver

import "testing"

func TestAtMost(t *testing.T) {
	cases := []struct {
		c    AtMost
		v    Version
		want bool
	}{
		{AtMost{Version{2, 0, 0}, 1}, Version{2, 9, 9}, true},
		{AtMost{Version{2, 0, 0}, 1}, Version{3, 0, 0}, false},
		{AtMost{Version{1, 1, 0}, 2}, Version{1, 1, 1}, true},
		{AtMost{Version{1, 1, 0}, 2}, Version{1, 2, 500}, false},
		{AtMost{Version{1, 2, 3}, 3}, Version{1, 2, 3}, true},
		{AtMost{Version{1, 2, 3}, 3}, Version{1, 2, 4}, false},
		{AtMost{Version{4, 5, 0}, 2}, Version{3, 4, 0}, true},
		{AtMost{Version{4, 5, 0}, 2}, Version{3, 7, 0}, true},
		{AtMost{Version{4, 5, 0}, 2}, Version{4, 6, 3}, false},
	}
	for _, tc := range cases {
		if got := tc.c.Check(tc.v); got != tc.want {
			t.Errorf("%+v.Check(%+v) = %v, want %v", tc.c, tc.v, got, tc.want)
		}
	}
}
