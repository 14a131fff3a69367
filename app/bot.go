package app

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/exchange"
)

// newBot builds the bot tree, its examples naming the program prog.
func newBot(prog string, d deps) *cobra.Command {
	root := &cobra.Command{
		Use:   prog,
		Short: "spotbot's daemon and operator tool",
		Long: prog + ` is spotbot's daemon and operator tool: it runs the trading bot (live,
paper or paper-replay), validates configurations, runs one scheduled job
now, serves the exchange interface over the simulated exchange, and moves
klines in and out of the store.

Exit codes: 0 done or interrupted, 1 failed, 2 bad usage or configuration.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return fmt.Errorf("%w: no command\n\n%s", ErrUsage, strings.TrimSuffix(c.UsageString(), "\n"))
		},
	}
	root.AddCommand(
		newRunCmd(prog, d),
		newCheckCmd(prog, d),
		newJobsCmd(prog, d),
		newPaperCmd(prog, d),
		newEndpointsCmd(prog),
		newSimServerCmd(prog, d),
		newDownloadCmd(prog, d),
		newImportCmd(prog),
		newExportCmd(prog),
		newStoreCmd(prog),
		newNewStrategyCmd(prog),
	)
	setRoot(root)
	return root
}

func newEndpointsCmd(prog string) *cobra.Command {
	return &cobra.Command{
		Use:   "endpoints",
		Short: "List every endpoint of the exchange interface",
		Long: `endpoints lists every endpoint of the exchange interface with its security,
permission, request weight and rate pools, as the client and the simulated
server know them.`,
		Example: "  " + prog + " endpoints",
		Args:    noArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return printEndpoints(c.OutOrStdout()) },
	}
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
