package flags

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	f := NewFlagSet()
	f.String("out", "a.txt")
	if err := f.Parse([]string{"in.txt", "--out=b.txt", "--", "--raw"}); err != nil {
		t.Fatal(err)
	}
	if got := f.Lookup("out"); got != "b.txt" {
		t.Errorf("out = %q, want b.txt", got)
	}
	if got := f.Args(); !reflect.DeepEqual(got, []string{"in.txt", "--raw"}) {
		t.Errorf("Args() = %v", got)
	}
}

func TestUnknownFlag(t *testing.T) {
	if err := NewFlagSet().Parse([]string{"--nope=1"}); err == nil {
		t.Error("expected an error for an unknown flag")
	}
}

func TestParseEmpty(t *testing.T) {
	f := NewFlagSet()
	if err := f.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if len(f.Args()) != 0 {
		t.Errorf("Args() = %v, want none", f.Args())
	}
}
