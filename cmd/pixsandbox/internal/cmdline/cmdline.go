// Package cmdline holds what every pixsandbox subcommand shares on its
// command line: a flag also read from a PIXSANDBOX_<FLAG> variable (the
// flag wins), the one-line hint after a usage error, and the URL a driving
// command reaches the simulator at when none is given (docs/cli.md, "Common
// flags, environment and exit codes").
package cmdline

import (
	"errors"
	"flag"
	"fmt"
	"strings"
)

// EnvPrefix begins the variable of every flag: --data-dir reads
// PIXSANDBOX_DATA_DIR.
const EnvPrefix = "PIXSANDBOX_"

// DefaultURL is where `pixsandbox serve` (and `make run`) listens by default.
const DefaultURL = "http://127.0.0.1:8080"

// EnvName is the variable of a flag: PIXSANDBOX_ and the flag's name in
// upper case, dashes as underscores.
func EnvName(flag string) string { return EnvNameIn(EnvPrefix, flag) }

// EnvNameIn is the variable of a flag under a command's own prefix
// (PIXSANDBOX_FAULT_ and --seed: PIXSANDBOX_FAULT_SEED), for a command whose
// flag would otherwise read another command's variable.
func EnvNameIn(prefix, flag string) string {
	return prefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// ApplyEnv sets every flag of fs whose variable, named by name (EnvName, or
// the command's own), lookup finds. Call it before fs.Parse, so that flags
// win over variables.
func ApplyEnv(fs *flag.FlagSet, lookup func(string) (string, bool), name func(flag string) string) error {
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := lookup(name(f.Name)); ok {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %w", name(f.Name), v, err))
			}
		}
	})
	return errors.Join(errs...)
}

// UsageHint is the line after a usage error: where the usage is.
func UsageHint(cmd string) string {
	return fmt.Sprintf("Run 'pixsandbox %s -h' for usage.\n", cmd)
}
