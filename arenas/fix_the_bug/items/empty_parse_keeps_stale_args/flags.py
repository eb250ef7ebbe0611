"""Parse "--name=value" command-line flags."""


class FlagError(Exception):
    pass


class FlagSet:
    """String flags and the arguments left over by parse."""

    def __init__(self):
        self.values = {}
        self._args = []
        self.parsed = False

    def string(self, name, value):
        """Define a string flag with a default value."""
        self.values[name] = value

    def lookup(self, name):
        return self.values.get(name)

    def args(self):
        """The non-flag arguments of the last parse."""
        return self._args

    def parse(self, arguments):
        """Read flags from `arguments`; "--" ends the flags. A FlagSet may
        be parsed more than once."""
        self.parsed = True

        if len(arguments) == 0:
            return

        self._args = []
        for i, s in enumerate(arguments):
            if s == "--":
                self._args.extend(arguments[i + 1 :])
                return
            if not s.startswith("--"):
                self._args.append(s)
                continue
            name, eq, value = s[2:].partition("=")
            if name not in self.values:
                raise FlagError(f"unknown flag: --{name}")
            if not eq:
                raise FlagError(f"flag needs a value: --{name}")
            self.values[name] = value
