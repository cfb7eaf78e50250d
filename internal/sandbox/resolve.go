package sandbox

import (
	"context"
	"encoding/json"
)

// Resolve runs req and resumes each suspension in memory with the next of
// resolutions (DESIGN.md §10): what a test run of a script that asks for
// approval needs, with no journal stored and no continuation signed. It
// returns the last run's result (Suspended when the resolutions ran out)
// and the requests the runs made, in order.
func Resolve(ctx context.Context, r Runner, req Request, resolutions []json.RawMessage) (Result, []json.RawMessage) {
	var requests []json.RawMessage
	for {
		res := r.Run(ctx, req)
		if res.Suspended == nil {
			return res, requests
		}
		requests = append(requests, res.Suspended.Request)
		if len(resolutions) == 0 {
			return res, requests
		}
		req.Journal, req.Resolution, resolutions = res.Suspended.Journal, resolutions[0], resolutions[1:]
	}
}
