package app

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/config"
	"github.com/spotbot/spotbot/daemon"
	"github.com/spotbot/spotbot/store"
)

// newPaperCmd is `bot paper`, whose only subcommand is reset.
func newPaperCmd(prog string, d deps) *cobra.Command {
	paper := groupOfOne(prog, "paper", "reset", "Manage the paper wallet (paper reset --config FILE)",
		"paper manages the wallet a paper bot keeps in its store; its only subcommand is reset.")
	var cfgPath string
	reset := &cobra.Command{
		Use:   "reset --config FILE",
		Short: "Start the paper wallet over from account.balances",
		Long: `reset forgets the paper wallet saved in the store of a paper configuration:
the next bot run starts a new wallet from account.balances, closes the
orders the old one left open in the store and rebuilds no position from
the old wallet's fills (they stay in the store). Stop the bot first.`,
		Example: "  " + prog + " paper reset --config configs/paper-live.yaml",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return resetPaper(c.Context(), d, cfgPath, c.OutOrStdout())
		},
	}
	reset.Flags().StringVar(&cfgPath, "config", "", "configuration file (required)")
	paper.AddCommand(reset)
	return paper
}

// resetPaper is `bot paper reset`.
func resetPaper(ctx context.Context, d deps, cfgPath string, stdout io.Writer) error {
	if cfgPath == "" {
		return fmt.Errorf("%w: paper reset: --config FILE is required", ErrUsage)
	}
	cfg, err := loadConfig(d.reg, "paper reset", cfgPath, d.environ(), nil)
	if err != nil {
		return err
	}
	if cfg.Mode != config.ModePaper {
		return fmt.Errorf("%w: %s: mode: %q keeps no paper wallet; paper reset is for mode: paper", ErrUsage, cfgPath, cfg.Mode)
	}
	st, err := store.Open(ctx, cfg.Store.Path)
	if err != nil {
		return fmt.Errorf("store.path: %w", err)
	}
	had, err := daemon.ResetPaper(ctx, st)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("paper reset: %w", err)
	}
	if !had {
		fmt.Fprintf(stdout, "%s: no paper wallet saved; the next start funds one from account.balances\n", cfg.Store.Path)
		return nil
	}
	fmt.Fprintf(stdout, "%s: paper wallet forgotten; the next start funds a new one from account.balances\n", cfg.Store.Path)
	return nil
}
