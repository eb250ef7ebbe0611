// Package flags parses "--name=value" command-line flags.
package flags

import (
	"fmt"
	"strings"
)

// FlagSet holds string flags and the arguments left over by Parse.
type FlagSet struct {
	values map[string]string
	args   []string
	parsed bool
}

// NewFlagSet returns a FlagSet with no flags defined.
func NewFlagSet() *FlagSet {
	return &FlagSet{values: map[string]string{}}
}

// String defines a string flag with a default value.
func (f *FlagSet) String(name, value string) {
	f.values[name] = value
}

// Lookup returns the current value of a flag.
func (f *FlagSet) Lookup(name string) string {
	return f.values[name]
}

// Args returns the non-flag arguments of the last Parse.
func (f *FlagSet) Args() []string { return f.args }

// Parse reads flags from arguments; "--" ends the flags. A FlagSet may be
// parsed more than once.
func (f *FlagSet) Parse(arguments []string) error {
	f.parsed = true

	if len(arguments) == 0 {
		return nil
	}

	f.args = make([]string, 0, len(arguments))
	for i, s := range arguments {
		if s == "--" {
			f.args = append(f.args, arguments[i+1:]...)
			return nil
		}
		if !strings.HasPrefix(s, "--") {
			f.args = append(f.args, s)
			continue
		}
		name, value, ok := strings.Cut(s[2:], "=")
		if _, known := f.values[name]; !known {
			return fmt.Errorf("unknown flag: --%s", name)
		}
		if !ok {
			return fmt.Errorf("flag needs a value: --%s", name)
		}
		f.values[name] = value
	}
	return nil
}
