// Command bot is spotbot's daemon and operator tool.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/spotbot/spotbot/exchange"
	"github.com/spotbot/spotbot/internal/cli"
)

func main() { cli.Main("bot", run) }

// The usage error and exit codes are the ones every command shares.
var errUsage = cli.ErrUsage

const (
	exitOK    = cli.ExitOK
	exitError = cli.ExitError
	exitUsage = cli.ExitUsage
)

func exitCode(err error, stderr io.Writer) int { return cli.ExitCode("bot", err, stderr) }

const usage = `usage: bot <command> [flags]

commands:
  run         run the trading bot (live, paper or paper-replay)
  check       validate a configuration without trading
  jobs        run a scheduled job once (bot jobs run <job> --config FILE)
  endpoints   list every endpoint of the exchange interface with its
              security, permission, weight and rate pools
  sim-server  serve the exchange interface over the simulated exchange
  download    fetch closed klines into the store (resumable)
  import      load klines from a CSV file into the store
  export      write stored klines as CSV`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: no command\n%s", errUsage, usage)
	}
	switch args[0] {
	case "endpoints":
		return printEndpoints(stdout)
	case "sim-server":
		return runSimServer(ctx, args[1:], stdout, os.Environ())
	case "run":
		return runCmd(ctx, args[1:], stdout, stderr)
	case "check":
		return checkCmd(ctx, args[1:], stdout, os.Environ())
	case "jobs":
		return jobsCmd(ctx, args[1:], stdout, stderr, os.Environ(), exchange.SystemClock{})
	case "download":
		return downloadCmd(ctx, args[1:], stdout, stderr)
	case "import":
		return importCmd(ctx, args[1:], stdout, stderr)
	case "export":
		return exportCmd(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return fmt.Errorf("%w: unknown command %q\n%s", errUsage, args[0], usage)
}

func printEndpoints(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AREA\tMETHOD\tPATH\tSECURITY\tPERMISSION\tWEIGHT\tPOOLS")
	for _, e := range exchange.Endpoints() {
		pools := ""
		for i, d := range e.Draws {
			if i > 0 {
				pools += ","
			}
			pools += fmt.Sprintf("%s:%d", d.Pool, d.Amount)
		}
		perm := string(e.Permission)
		if perm == "" {
			perm = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", e.Area, e.Method, e.Path, e.Security, perm, e.Weight, pools)
	}
	fmt.Fprintf(tw, "\n%d endpoints\n", len(exchange.Endpoints()))
	return tw.Flush()
}
