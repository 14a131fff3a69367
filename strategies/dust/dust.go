// Package dust converts small balances into the platform token on a cron
// schedule.
//
// At each scheduled time it lists the exchange's dust candidates, keeps
// those the exchange marks convertible (no refusal code) and not excluded,
// and converts them in batches of at most 15 assets, the exchange's limit.
// The outcome of each asset of the last run is kept in the instance's state.
// A run that cannot list the candidates (the exchange unreachable, say) is
// logged and recorded in the state as LastError; the instance keeps its
// schedule, so the next run tries again.
//
// Parameters (defaults in brackets):
//
//	schedule:  cron spec (seconds optional, UTC) [the instance's schedule, else "0 3 * * *"]
//	exclude:   assets never to convert [none]
//
// Example:
//
//	strategies:
//	  - name: dust
//	    id: dust
//	    schedule: "0 3 * * *"
//	    params: {exclude: [BNB]}
package dust

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/spotbot/spotbot/strategy"
)

// Name is the registered name.
const Name = "dust"

// MaxAssets is the exchange's limit of assets per conversion.
const MaxAssets = 15

// Params are the strategy's parameters.
type Params struct {
	Schedule string   `koanf:"schedule"`
	Exclude  []string `koanf:"exclude"`
}

// Validate checks the parameters.
func (p Params) Validate() error {
	if err := strategy.ParseSchedule(p.Schedule); err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	return nil
}

// New builds an instance from its configuration.
func New(cfg strategy.Config) (strategy.Strategy, error) {
	p := Params{Schedule: cfg.Schedule}
	if p.Schedule == "" {
		p.Schedule = "0 3 * * *"
	}
	if err := strategy.DecodeParams(cfg.Params, &p); err != nil {
		return nil, err
	}
	ex := map[string]bool{}
	for _, a := range p.Exclude {
		ex[a] = true
	}
	return &Strategy{p: p, exclude: ex}, nil
}

// Outcome is what happened to one asset in a run.
type Outcome struct {
	Asset  string `json:"asset"`
	Result string `json:"result"` // converted, failed, ineligible, excluded
	Reason string `json:"reason,omitempty"`
}

// Strategy is a dust instance.
type Strategy struct {
	p       Params
	exclude map[string]bool
	// Last is the outcome of every candidate in the latest run.
	Last    []Outcome `json:"last"`
	LastRun time.Time `json:"last_run"`
	// LastError says why the latest run converted nothing, if it failed
	// before converting.
	LastError string `json:"last_error,omitempty"`
}

// OnKline implements strategy.Strategy; dust needs no bars.
func (s *Strategy) OnKline(strategy.Context, strategy.Bar) error { return nil }

// Schedules implements strategy.Scheduler.
func (s *Strategy) Schedules() []strategy.Schedule {
	return []strategy.Schedule{{Name: "convert", Spec: s.p.Schedule, Run: s.Convert}}
}

// MarshalState implements strategy.Stateful.
func (s *Strategy) MarshalState() ([]byte, error) { return json.Marshal(s) }

// UnmarshalState implements strategy.Stateful.
func (s *Strategy) UnmarshalState(b []byte) error { return json.Unmarshal(b, s) }

// Convert lists candidates and converts the eligible ones in batches.
func (s *Strategy) Convert(ctx strategy.Context, at time.Time) error {
	s.Last, s.LastRun, s.LastError = nil, at, ""
	cands, err := ctx.DustCandidates()
	if err != nil {
		// A transient failure must not stop a job that runs once a day;
		// the state records it and the next run tries again.
		s.LastError = "listing candidates: " + err.Error()
		ctx.Log().Warn("dust: listing candidates failed", "err", err)
		return nil
	}
	var eligible []string
	for _, c := range cands {
		switch {
		case s.exclude[c.Asset]:
			s.Last = append(s.Last, Outcome{Asset: c.Asset, Result: "excluded"})
		case c.Code != "" || c.Message != "":
			s.Last = append(s.Last, Outcome{Asset: c.Asset, Result: "ineligible", Reason: c.Message})
		default:
			eligible = append(eligible, c.Asset)
		}
	}
	sort.Strings(eligible)
	for len(eligible) > 0 {
		n := min(len(eligible), MaxAssets)
		batch := eligible[:n]
		eligible = eligible[n:]
		res, err := ctx.ConvertDust(batch)
		if err != nil {
			for _, a := range batch {
				s.Last = append(s.Last, Outcome{Asset: a, Result: "failed", Reason: err.Error()})
			}
			ctx.Log().Warn("dust: conversion failed", "assets", batch, "err", err)
			continue
		}
		for _, a := range res.SuccessList {
			s.Last = append(s.Last, Outcome{Asset: a, Result: "converted"})
		}
		for _, f := range res.FailedList {
			s.Last = append(s.Last, Outcome{Asset: f.Asset, Result: "failed", Reason: f.Message})
		}
		ctx.Log().Info("dust: converted", "assets", res.SuccessList, "failed", len(res.FailedList),
			"total", res.TotalConvert.String(), "fee", res.ConvertFee.String())
	}
	sort.Slice(s.Last, func(i, j int) bool { return s.Last[i].Asset < s.Last[j].Asset })
	return nil
}
