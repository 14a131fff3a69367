// Command bot is spotbot's daemon and operator tool over the built-in
// strategies: run, check, jobs run, endpoints, sim-server, download, import,
// export and new-strategy. Its commands live in package app, which a module with
// strategies of its own uses the same way.
package main

import (
	"github.com/spotbot/spotbot/app"
	"github.com/spotbot/spotbot/strategies"
)

func main() { app.Main(app.Bot(strategies.NewRegistry())) }
