package app

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/spotbot/spotbot/store"
)

// newStoreCmd is `bot store`, the store's maintenance commands.
func newStoreCmd(prog string) *cobra.Command {
	c := &cobra.Command{
		Use:   "store",
		Short: "Maintain the store (backups)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return fmt.Errorf("%w: store: name a command\n\n%s", ErrUsage, c.UsageString())
		},
	}
	var db, out string
	backup := &cobra.Command{
		Use:   "backup --db FILE --out FILE",
		Short: "Copy the store while the bot runs",
		Long: `backup writes a consistent copy of the store to a new file while the bot
keeps trading (SQLite's VACUUM INTO reads one snapshot; the bot's writes go
on). The copy holds every transaction committed before the backup began, is
checked (PRAGMA quick_check) and opens as a store: to restore, stop the
bot and put the copy in place of store.path.`,
		Example: "  " + prog + " store backup --db /var/lib/spotbot/spotbot.db --out /var/backups/spotbot-$(date +%F).db",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return backupStore(c.Context(), db, out, c.OutOrStdout())
		},
	}
	backup.Flags().StringVar(&db, "db", "", "the store's file (store.path; required)")
	backup.Flags().StringVar(&out, "out", "", "the copy, a file that must not exist (required)")
	c.AddCommand(backup)
	return c
}

// backupStore is `bot store backup`.
func backupStore(ctx context.Context, db, out string, stdout io.Writer) error {
	if db == "" || out == "" {
		return fmt.Errorf("%w: store backup: --db FILE and --out FILE are required", ErrUsage)
	}
	s, err := store.Open(ctx, db, store.ReadOnly())
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.Backup(ctx, out); err != nil {
		return err
	}
	c, err := store.Open(ctx, out, store.ReadOnly(), store.Verify())
	if err != nil {
		return fmt.Errorf("store backup: the copy does not check: %w", err)
	}
	if err := c.Close(); err != nil {
		return err
	}
	st, err := os.Stat(out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s (%d bytes, checked)\n", db, out, st.Size())
	return nil
}
