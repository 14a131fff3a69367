package app_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spotbot/spotbot/app"
	"github.com/spotbot/spotbot/strategies"
)

// One binary with every command: the bot's, and backtest's as a group.
// A module with strategies of its own registers them into reg first.
func ExampleNew() {
	reg := strategies.NewRegistry()
	root := app.New("mybot", reg)
	for _, c := range root.Commands() {
		fmt.Println(c.CommandPath(), "-", c.Short)
	}
	// Output:
	// mybot backtest - Backtest spotbot strategies over historical klines
	// mybot check - Validate a configuration without trading
	// mybot download - Fetch closed klines into the store (resumable)
	// mybot endpoints - List every endpoint of the exchange interface
	// mybot export - Write stored klines as CSV or an Arrow bars file
	// mybot import - Load klines from a data file into the store
	// mybot jobs - Run a scheduled job once (jobs run JOB --config FILE)
	// mybot new-strategy - Write a new module with a strategy of your own, ready to test and backtest
	// mybot paper - Manage the paper wallet (paper reset --config FILE)
	// mybot run - Run the trading bot (live, paper or paper-replay)
	// mybot sim-server - Serve the exchange interface over the simulated exchange
	// mybot store - Maintain the store (backups)
}

// Execute runs a command tree on arguments, as a test of one's own
// strategy would run its backtest.
func ExampleExecute() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	var out, errOut bytes.Buffer
	code := app.Execute(context.Background(), app.Backtest(strategies.NewRegistry()),
		[]string{"run", "--out", dir, "--no-store", "--no-html"}, &out, &errOut)
	fmt.Println("exit", code)
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "Trades ") || strings.HasPrefix(line, "Equity final ") {
			fmt.Println(line)
		}
	}
	// Output:
	// exit 0
	// Equity final           20,438.17 USDT
	// Trades                 91
}
