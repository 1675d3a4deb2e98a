package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/pixsandbox/pixsandbox/cmd/pixsandbox/internal/cmdline"
	"github.com/pixsandbox/pixsandbox/simulator/events"
)

// command is a subcommand as help, completion and the help test see it.
type command struct {
	name, summary string
	subs          []string // words after it (clock show|advance|set)
}

// commands lists every subcommand of pixsandbox.
var commands = []command{
	{name: "serve", summary: "start the simulator"},
	{name: "cert-header", summary: "print a PEM certificate URL-encoded for X-SSL-Client-Cert"},
	{name: "conform", summary: "run the conformance suite against a target"},
	{name: "check-receiver", summary: "check a partner's webhook receiver"},
	{name: "proxy", summary: "forward traffic to an upstream and judge every exchange against the contract"},
	{name: "validate", summary: "judge recorded traffic (a request journal export, a HAR file) against the contract"},
	{name: "healthcheck", summary: "exit 0 when the server answers /healthz"},
	{name: "token", summary: "print an access token for an account"},
	{name: "pay", summary: "pay a charge"},
	{name: "clock", summary: "read or move the simulation clock", subs: []string{"show", "advance", "set"}},
	{name: "trigger", summary: "make the sandbox send a webhook event, or run a scenario", subs: events.Names()},
	{name: "webhooks", summary: "print webhook deliveries as they happen; rotate a signing secret", subs: []string{"tail", "rotate-secret"}},
	{name: "listen", summary: "forward an account's webhook events to a local URL"},
	{name: "requests", summary: "print the requests the simulator answered", subs: []string{"clear"}},
	{name: "reset", summary: "drop all state and reseed the fixture accounts"},
	{name: "workspace", summary: "manage the workspaces of a running simulator", subs: []string{"create", "list", "show", "delete", "snapshot"}},
	{name: "fault", summary: "make the PIX API's requests fail as a network would", subs: []string{"add", "list", "clear"}},
	{name: "version", summary: "print the version, commit and build date"},
	{name: "completion", summary: "print a shell completion script", subs: []string{"bash", "zsh", "fish", "powershell"}},
}

const completionUsage = `Usage:
  pixsandbox completion bash|zsh|fish|powershell

Prints a completion script for the shell: subcommands, their words and their
flags. Load it with
  bash:  source <(pixsandbox completion bash)     (or save it in /etc/bash_completion.d/)
  zsh:   source <(pixsandbox completion zsh)      (or save it as _pixsandbox in $fpath)
  fish:  pixsandbox completion fish > ~/.config/fish/completions/pixsandbox.fish
  PowerShell:  pixsandbox completion powershell | Out-String | Invoke-Expression
               (or add that line to $PROFILE)
`

// helpFlag matches a flag line of a flag.FlagSet's PrintDefaults.
var helpFlag = regexp.MustCompile(`(?m)^  -([a-z][a-z0-9.-]*)`)

// commandHelp runs `pixsandbox NAME -h` and returns what it printed.
func commandHelp(name string) (string, int) {
	var out bytes.Buffer
	code := run([]string{name, "-h"}, &out, &out)
	return out.String(), code
}

// commandFlags returns the flags a command's help lists.
func commandFlags(name string) []string {
	help, _ := commandHelp(name)
	var flags []string
	for _, m := range helpFlag.FindAllStringSubmatch(help, -1) {
		flags = append(flags, "--"+m[1])
	}
	sort.Strings(flags)
	return flags
}

func completion(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && isHelpFlag(args[0]) {
		fmt.Fprint(stdout, completionUsage)
		return 0
	}
	if len(args) != 1 {
		fmt.Fprintf(stderr, "pixsandbox completion: name one shell: bash, zsh, fish or powershell\n%s", cmdline.UsageHint("completion"))
		return 2
	}
	switch args[0] {
	case "bash":
		fmt.Fprint(stdout, bashCompletion())
	case "zsh":
		fmt.Fprint(stdout, zshCompletion())
	case "fish":
		fmt.Fprint(stdout, fishCompletion())
	case "powershell", "pwsh":
		fmt.Fprint(stdout, powershellCompletion())
	default:
		fmt.Fprintf(stderr, "pixsandbox completion: unknown shell %q: bash, zsh, fish or powershell\n%s", args[0], cmdline.UsageHint("completion"))
		return 2
	}
	return 0
}

// words is what may follow a command: its words and flags.
func words(c command) string {
	w := append(append([]string(nil), c.subs...), commandFlags(c.name)...)
	return strings.Join(append(w, "--help"), " ")
}

func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(append(names, "help"), " ")
}

func bashCompletion() string {
	var b strings.Builder
	b.WriteString("# bash completion for pixsandbox (pixsandbox completion bash)\n_pixsandbox() {\n")
	b.WriteString("  local cur=\"${COMP_WORDS[COMP_CWORD]}\" words\n")
	fmt.Fprintf(&b, "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n    return\n  fi\n", commandNames())
	b.WriteString("  case \"${COMP_WORDS[1]}\" in\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "    %s) words=%q ;;\n", c.name, words(c))
	}
	b.WriteString("    *) words=\"\" ;;\n  esac\n  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\ncomplete -o default -F _pixsandbox pixsandbox\n")
	return b.String()
}

func zshCompletion() string {
	var b strings.Builder
	b.WriteString("#compdef pixsandbox\n# zsh completion for pixsandbox (pixsandbox completion zsh)\n_pixsandbox() {\n  local -a cmds\n  cmds=(\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "    %q\n", c.name+":"+c.summary)
	}
	b.WriteString("  )\n  if (( CURRENT == 2 )); then\n    _describe 'command' cmds\n    return\n  fi\n  case $words[2] in\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "    %s) compadd -- %s ;;\n", c.name, words(c))
	}
	b.WriteString("  esac\n}\nif [ \"$funcstack[1]\" = \"_pixsandbox\" ]; then\n  _pixsandbox \"$@\"\nelse\n  compdef _pixsandbox pixsandbox\nfi\n")
	return b.String()
}

func fishCompletion() string {
	var b strings.Builder
	b.WriteString("# fish completion for pixsandbox (pixsandbox completion fish)\ncomplete -c pixsandbox -f\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "complete -c pixsandbox -n __fish_use_subcommand -a %s -d %q\n", c.name, c.summary)
		for _, s := range c.subs {
			fmt.Fprintf(&b, "complete -c pixsandbox -n '__fish_seen_subcommand_from %s' -a %s\n", c.name, s)
		}
		for _, f := range commandFlags(c.name) {
			fmt.Fprintf(&b, "complete -c pixsandbox -n '__fish_seen_subcommand_from %s' -l %s\n", c.name, strings.TrimPrefix(f, "--"))
		}
	}
	return b.String()
}

// psQuote is s as a PowerShell single-quoted string.
func psQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// powershellCompletion is a native argument completer: the subcommands (with
// their summaries as tooltips) in the first position, then the words and
// flags of the subcommand given.
func powershellCompletion() string {
	var b strings.Builder
	b.WriteString("# PowerShell completion for pixsandbox (pixsandbox completion powershell)\n")
	b.WriteString("Register-ArgumentCompleter -Native -CommandName pixsandbox -ScriptBlock {\n")
	b.WriteString("    param($wordToComplete, $commandAst, $cursorPosition)\n")
	b.WriteString("    $commands = [ordered]@{\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "        %s = %s\n", psQuote(c.name), psQuote(c.summary))
	}
	b.WriteString("        'help' = 'print the usage of pixsandbox or of a command'\n    }\n")
	b.WriteString("    $words = @{\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "        %s = %s\n", psQuote(c.name), psQuote(words(c)))
	}
	b.WriteString("    }\n")
	b.WriteString("    $elements = @($commandAst.CommandElements | ForEach-Object { $_.ToString() })\n")
	b.WriteString("    $index = if ($wordToComplete) { $elements.Count - 1 } else { $elements.Count }\n")
	b.WriteString("    if ($index -le 1) {\n")
	b.WriteString("        $commands.Keys | Where-Object { $_ -like \"$wordToComplete*\" } | ForEach-Object {\n")
	b.WriteString("            [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $commands[$_])\n")
	b.WriteString("        }\n        return\n    }\n")
	b.WriteString("    $candidates = $words[$elements[1]]\n")
	b.WriteString("    if (-not $candidates) { return }\n")
	b.WriteString("    $candidates -split ' ' | Where-Object { $_ -like \"$wordToComplete*\" } | ForEach-Object {\n")
	b.WriteString("        [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)\n")
	b.WriteString("    }\n}\n")
	return b.String()
}
