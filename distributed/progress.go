package distributed

// Progress is how far the stages a coordinator merges have come: units
// and runs done and in all. A walk-forward window's runs of its best
// combination count as one unit of two runs.
type Progress struct {
	UnitsDone, Units int
	RunsDone, Runs   int
}

// track adds units and runs to the totals; advance counts them done. Both
// report to OnProgress.
func (q *Queue) track(units, runs int) { q.progress(Progress{Units: units, Runs: runs}) }

func (q *Queue) advance(units, runs int) { q.progress(Progress{UnitsDone: units, RunsDone: runs}) }

func (q *Queue) progress(d Progress) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.prog.Units += d.Units
	q.prog.Runs += d.Runs
	q.prog.UnitsDone += d.UnitsDone
	q.prog.RunsDone += d.RunsDone
	if q.OnProgress != nil {
		q.OnProgress(q.prog)
	}
}
