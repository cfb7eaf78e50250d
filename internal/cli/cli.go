// Package cli is the flowscript command, the users' tool: run scripts in
// the same sandbox the executor uses, submit jobs to an executor, load-test
// one, and manage templates through the templates API. Each command lives in
// its own file and registers itself.
//
// Everything it touches of the outside world comes in through Env, so each
// command can be tested with buffers and a fake environment. A command must
// never read os.Args, os.Getenv or the standard streams directly, and never
// run a script outside the sandbox worker pool.
//
// A binary that calls Main must call workerpool.MaybeRunWorker first: the
// run command starts sandbox workers by re-executing the binary.
package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// Exit codes of every command.
const (
	ExitOK     = 0 // success
	ExitFailed = 1 // the work failed (a script, a job, a request)
	ExitUsage  = 2 // the command line or the environment is wrong
	// ExitSuspended: run's script asked for approval and no --resolution
	// answered it.
	ExitSuspended = 3
)

// Env is the outside world of one invocation.
type Env struct {
	// Args are the arguments after the program name.
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads an environment variable (os.Getenv in main).
	Getenv func(string) string
}

// Command is one subcommand. Files of this package add theirs with
// register, from init.
type Command struct {
	Name string
	// Summary is the one line shown in the command list.
	Summary string
	// Help is the full text of `flowscript help <name>`: usage, flags,
	// environment, examples.
	Help string
	// Run executes the command with the arguments after its name and
	// returns the exit code.
	Run func(ctx context.Context, env Env, args []string) int
}

var commands = map[string]*Command{}

// register adds c to the command table; a duplicate name is a programming
// error.
func register(c *Command) {
	if _, dup := commands[c.Name]; dup {
		panic("cli: command registered twice: " + c.Name)
	}
	commands[c.Name] = c
}

// Main runs the command named by env.Args[0] and returns the exit code.
func Main(ctx context.Context, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if len(env.Args) == 0 {
		_, _ = fmt.Fprint(env.Stderr, usage())
		return ExitUsage
	}
	name, args := env.Args[0], env.Args[1:]
	if isHelp(name) {
		return help(env, args)
	}
	c, ok := commands[name]
	if !ok {
		_, _ = fmt.Fprintf(env.Stderr, "flowscript: unknown command %q\nRun 'flowscript help' for the list of commands.\n", name)
		return ExitUsage
	}
	return c.Run(ctx, env, args)
}

// isHelp reports whether name asks for help: the help command or its flags.
func isHelp(name string) bool {
	switch name {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}

// help prints the general usage, or a command's help. Help on help itself
// (flowscript help help) is the general usage: it lists what help can name.
func help(env Env, args []string) int {
	if len(args) == 0 || isHelp(args[0]) {
		_, _ = fmt.Fprint(env.Stdout, usage())
		return ExitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		_, _ = fmt.Fprintf(env.Stderr, "flowscript help: unknown command %q\nRun 'flowscript help' for the list of commands.\n", args[0])
		return ExitUsage
	}
	_, _ = fmt.Fprint(env.Stdout, c.Help)
	return ExitOK
}

func usage() string {
	var b strings.Builder
	b.WriteString("flowscript runs scripts in the executor's sandbox, submits and benchmarks jobs, and manages templates.\n\n")
	b.WriteString("Usage:\n  flowscript <command> [arguments]\n\nCommands:\n")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(&b, "  %-10s %s\n", name, commands[name].Summary)
	}
	b.WriteString("\nRun 'flowscript help <command>' for its flags and examples.\n")
	return b.String()
}

// usageError prints a usage problem of command name and returns ExitUsage.
func usageError(env Env, name, format string, args ...any) int {
	msg := flagDashes.ReplaceAllString(fmt.Sprintf(format, args...), "$1--$2")
	if strings.HasSuffix(msg, ": parse error") { // the flags package's word for a value its type cannot read
		want := "write a whole number"
		if strings.HasSuffix(msg, "for flag --timeout: parse error") { // every duration flag is --timeout
			want = "write a duration with its unit, such as 30s or 2m"
		}
		msg = strings.TrimSuffix(msg, "parse error") + want
	}
	_, _ = fmt.Fprintf(env.Stderr, "flowscript %s: %s\nRun 'flowscript help %s' for usage.\n", name, msg, name)
	return ExitUsage
}

// flagDashes finds the flags package's one-dash spelling of a flag at the
// start of its errors ("flag provided but not defined: -fast", after a
// subcommand's "get: "); the help and README spell flags with two.
var flagDashes = regexp.MustCompile(`^((?:[a-z]+: )?(?:flag provided but not defined: |flag needs an argument: |invalid (?:boolean )?value "(?:[^"\\]|\\.)*" for (?:flag )?))-([A-Za-z])`)

// parseInterspersed parses args with fs, allowing flags after positional
// arguments (flowscript run script.js --json), and returns the positional
// ones in order. Its error is fs.Parse's (flag.ErrHelp for -h).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return positional, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// byteOrderMark is U+FEFF in UTF-8, which some editors (and Windows
// PowerShell's redirection) write at the start of a text file.
const byteOrderMark = "\uFEFF"

// trimByteOrderMark drops a byte order mark at the start of a JSON file:
// RFC 8259 §8.1 lets a parser ignore it, and it is no part of the JSON.
// Every command that reads a JSON file calls it before decoding.
func trimByteOrderMark(data []byte) []byte {
	return bytes.TrimPrefix(data, []byte(byteOrderMark))
}
