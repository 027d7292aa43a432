// Package jobstest holds what the tests of the job queue's users share.
package jobstest

import (
	"context"
	"sync"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Worked is River middleware that keeps the ids of the jobs whose work
// ended well, which River's completer marks completed only in its next
// batch (up to 250 ms later): a test that waits for the queue to settle
// takes them as done. The zero Worked is ready to use.
type Worked struct {
	river.MiddlewareDefaults
	mu  sync.Mutex
	ids map[int64]bool
}

// Work runs the job and keeps its id when its work ended well.
func (w *Worked) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	err := doInner(ctx)
	if err == nil {
		w.mu.Lock()
		if w.ids == nil {
			w.ids = map[int64]bool{}
		}
		w.ids[job.ID] = true
		w.mu.Unlock()
	}
	return err
}

// Done reports whether the work of every job of ids ended well.
func (w *Worked) Done(ids ...int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range ids {
		if !w.ids[id] {
			return false
		}
	}
	return true
}
