package humanize

import (
	"testing"
	"time"
)

var magnitudes = []RelTimeMagnitude{
	{time.Second, "now", time.Second},
	{time.Minute, "%d seconds %s", time.Second},
	{time.Hour, "%d minutes %s", time.Minute},
	{24 * time.Hour, "%d hours %s", time.Hour},
}

func TestCustomRelTime(t *testing.T) {
	base := time.Unix(0, 0)
	cases := []struct {
		then time.Time
		want string
	}{
		{base, "now"},
		{base.Add(-12 * time.Second), "12 seconds ago"},
		{base.Add(15 * time.Minute), "15 minutes from now"},
		{base.Add(-time.Hour), "1 hours ago"},
	}
	for _, c := range cases {
		if got := CustomRelTime(c.then, base, "ago", "from now", magnitudes); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
