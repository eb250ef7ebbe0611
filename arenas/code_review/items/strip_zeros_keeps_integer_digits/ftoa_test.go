package humanize

import "testing"

func TestFtoa(t *testing.T) {
	cases := []struct{ got, want string }{
		{Ftoa(200), "200"},
		{Ftoa(2), "2"},
		{Ftoa(2.5), "2.5"},
		{Ftoa(2.02), "2.02"},
		{FtoaWithDigits(1.23, 0), "1"},
		{FtoaWithDigits(1.23, 1), "1.2"},
		{FtoaWithDigits(1.23, 3), "1.23"},
		{FtoaWithDigits(2.5, 3), "2.5"},
		{FtoaWithDigits(20, 0), "20"},
		{FtoaWithDigits(200, 0), "200"},
		{FtoaWithDigits(-10, 0), "-10"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}
