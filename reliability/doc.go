// Package reliability holds the project's reliability proofs: bounded tests
// that run the REST client against the simulated server under bursts,
// hostile input and security probes, and check what the server saw. The
// package has no library code; docs/reliability.md records the figures.
package reliability
