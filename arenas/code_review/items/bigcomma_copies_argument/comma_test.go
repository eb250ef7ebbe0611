package humanize

import (
	"math/big"
	"testing"
)

func TestBigComma(t *testing.T) {
	cases := []struct {
		in   int64
		want string
	}{
		{0, "0"},
		{999, "999"},
		{1000, "1,000"},
		{1234567, "1,234,567"},
		{1000005, "1,000,005"},
		{-1000, "-1,000"},
	}
	for _, c := range cases {
		if got := BigComma(big.NewInt(c.in)); got != c.want {
			t.Errorf("BigComma(%d) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestBigCommaLeavesArgument(t *testing.T) {
	value := big.NewInt(-1000000)
	value.Mul(value, big.NewInt(1000000))
	first := BigComma(value)
	second := BigComma(value)
	if first != "-1,000,000,000,000" || second != first {
		t.Errorf("got %q then %q", first, second)
	}
	if value.String() != "-1000000000000" {
		t.Errorf("argument changed to %s", value)
	}
}
