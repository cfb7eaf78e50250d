package sandbox

import (
	"cmp"
	"context"
	"encoding/json"
	"time"
)

// Resolve runs req and resumes each suspension in memory with the next of
// resolutions (DESIGN.md §10): what a test run of a script that asks for
// approval needs, with no journal stored and no continuation signed. It
// returns the last run's result (Suspended when the resolutions ran out)
// and the requests the runs made, in order. Its console lines are every
// run's, in order: each resumed run logs only its live part, within its
// own caps.
//
// The runs share one time limit: limit, the runner's (DefaultTimeout when
// 0), or req.Timeout when lower. Each resumed run gets what the runs
// before it left, so that a test run with resolutions ends within one
// limit, as any other does, and fails with CodeTimeout past it. The
// result's Duration is the runs' sum.
func Resolve(ctx context.Context, r Runner, req Request, resolutions []json.RawMessage, limit time.Duration) (Result, []json.RawMessage) {
	budget := cmp.Or(limit, DefaultTimeout)
	if req.Timeout > 0 && req.Timeout < budget {
		budget = req.Timeout
	}
	var requests []json.RawMessage
	var logs []LogEntry
	truncated := false
	var spent time.Duration
	for {
		if len(requests) > 0 {
			left := budget - spent
			if left <= 0 {
				return Result{Err: &Error{Code: CodeTimeout, Message: MsgTimeout}, Duration: spent,
					Logs: logs, LogsTruncated: truncated}, requests
			}
			req.Timeout = left
		}
		res := r.Run(ctx, req)
		spent += res.Duration
		res.Duration = spent
		if len(requests) > 0 {
			res.Logs, res.LogsTruncated = append(logs, res.Logs...), truncated || res.LogsTruncated
		}
		if res.Suspended == nil {
			return res, requests
		}
		requests = append(requests, res.Suspended.Request)
		if len(resolutions) == 0 {
			return res, requests
		}
		logs, truncated = res.Logs, res.LogsTruncated
		req.Journal, req.Resolution, resolutions = res.Suspended.Journal, resolutions[0], resolutions[1:]
	}
}
