package templatesapi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/actions"
	"github.com/flowscript/flowscript/internal/capabilities"
	"github.com/flowscript/flowscript/internal/capabilities/sessionkv"
	"github.com/flowscript/flowscript/internal/failrecord"
	"github.com/flowscript/flowscript/internal/natsurl"
	"github.com/flowscript/flowscript/internal/templates"
)

// CodeFailuresUnavailable says the failures stream cannot be read: NATS_URL is
// not set on this service, or its NATS does not answer.
const CodeFailuresUnavailable = "FAILURES_UNAVAILABLE"

// replayNATSTimeout bounds connecting to NATS and reading one record.
const replayNATSTimeout = 5 * time.Second

// replayRequest is the optional body of POST {base}/failures/{jobId}/replay:
// Source, when set, runs instead of the recorded source (a fix); Version,
// when set, runs that version of the job's template (templateId) from this
// service's store instead. At most one of them.
type replayRequest struct {
	Source  *string      `json:"source"`
	Version *wholeNumber `json:"version"`
}

// replayFailure is a test run of a recorded failed job: the job's failure
// record is read from the executor's failures stream and run again in the
// sandbox test runs use, with its recorded inputs, and the answer puts the
// original error beside the new outcome (failrecord.Report). Nothing is
// published. It needs the write role, as every run of code does (the
// record holds session variables).
func (s *Server) replayFailure(w http.ResponseWriter, r *http.Request) {
	jobID := r.PathValue("jobId")
	if !flowjob.ValidID(jobID) {
		writeError(w, newError(http.StatusBadRequest, CodeInvalidID,
			fmt.Sprintf("%q is not a job id: ids are 1 to %d letters, digits, '-' or '_'", jobID, flowjob.MaxIDBytes),
			fieldError{Field: "jobId", Code: CodeInvalidID, Message: "jobId must be a job id"}))
		return
	}
	if s.cfg.NATSURL == "" {
		writeError(w, newError(http.StatusServiceUnavailable, CodeFailuresUnavailable,
			"replaying a failed job needs the executor's NATS: set NATS_URL on the templates API (and NATS_CREDS, JOBS_STREAM, SUBJECT_PREFIX as the executor has them)"))
		return
	}
	// A replay runs a script: as a test run, one that finds every slot
	// taken is answered at once, unread, and one whose body comes slowly
	// takes its slot only once the body is in.
	if !s.slotFree() {
		writeError(w, busy(cap(s.slots)))
		return
	}
	var body replayRequest
	if r.ContentLength != 0 {
		release, herr := s.readJSON(w, r, s.cfg.replayBodyBytes(), &body)
		if herr != nil {
			writeError(w, herr)
			return
		}
		defer release()
	}
	if !s.takeSlot() {
		writeError(w, busy(cap(s.slots)))
		return
	}
	defer s.giveSlot()
	switch {
	case body.Source != nil && body.Version != nil:
		writeError(w, newError(http.StatusUnprocessableEntity, CodeValidationFailed,
			"the job was not replayed: give source or version, not both",
			fieldError{Field: "version", Code: CodeValidationFailed, Message: "version cannot be given with source"}))
		return
	case body.Version != nil && *body.Version < 1:
		writeError(w, newError(http.StatusUnprocessableEntity, CodeValidationFailed,
			fmt.Sprintf("the job was not replayed: version must be 1 or more, got %d", *body.Version),
			fieldError{Field: "version", Code: CodeValidationFailed, Message: "version must be 1 or more"}))
		return
	}
	if body.Source != nil {
		var fields []fieldError
		for _, f := range templates.ValidateRunnableSource(*body.Source, s.cfg.Sandbox.MaxSourceBytes) {
			fields = append(fields, fieldError{Field: f.Field, Code: f.Code, Message: f.Message})
		}
		if len(fields) > 0 {
			writeError(w, newError(http.StatusUnprocessableEntity, CodeValidationFailed,
				"the job was not replayed: "+fields[0].Message+moreProblems(len(fields)-1), fields...))
			return
		}
	}
	rec, herr := s.loadFailure(r.Context(), jobID)
	if herr != nil {
		writeError(w, herr)
		return
	}
	// A replay shows the job's session variables and runs its host
	// functions: a token bound to tenants replays only its tenants' jobs.
	// Another tenant's job is answered as a job with no record, so that a
	// token learns neither that it exists nor whose it is.
	if rec.Job.TenantID != "" || len(rec.Job.Capabilities) > 0 {
		if !mayUseTenant(r, rec.Job.TenantID) {
			writeError(w, newError(http.StatusNotFound, CodeNotFound, failrecord.NoRecord(s.failuresStream(), jobID).Error()))
			return
		}
	}
	opts := failrecord.Options{SourceLabel: "request source"}
	if body.Source != nil {
		opts.Source = *body.Source
	}
	if body.Version != nil {
		src, herr := s.versionSource(r, rec.Job, int(*body.Version))
		if herr != nil {
			writeError(w, herr)
			return
		}
		opts.Source, opts.SourceLabel = src, fmt.Sprintf("template version %d", *body.Version)
	}
	if len(rec.Job.Capabilities) > 0 {
		opts.Grants = capabilities.New(s.policy, s.api, sessionkv.NewMemory(sessionkv.Config{})).HostFor
	}
	opts.Timeout = s.cfg.Sandbox.Timeout
	report := failrecord.Replay(r.Context(), s.runner, rec, opts)
	if out := &report.Replay; out.Status == flowjob.StatusSucceeded && out.Output != nil {
		// As the executor would store it: a result event too large for a
		// broker message fails the job with OUTPUT_TOO_LARGE.
		job := rec.Job
		event := flowjob.Result{JobID: job.ID, SessionID: job.SessionID, FlowID: job.FlowID, BlockID: job.BlockID,
			Status: flowjob.StatusSucceeded, Variables: map[string]string{job.Action.OutputVariable: *out.Output}, Logs: actions.LogsOf(out.Logs)}
		if e := resultTooLarge(event, s.cfg.BrokerMaxPayload); e != nil {
			out.Status, out.Output, out.Error = flowjob.StatusFailed, nil, e
			report.SameError = e.Code == report.Original.Error.Code && report.Original.Error.Line == 0 && report.Original.Error.Column == 0
		}
	}
	writeJSON(w, http.StatusOK, report)
}

// versionSource is the source of version n of the template the recorded
// job named.
func (s *Server) versionSource(r *http.Request, job flowjob.Job, n int) (string, *httpError) {
	id, err := uuid.Parse(job.TemplateID)
	if job.TemplateID == "" || err != nil {
		return "", newError(http.StatusUnprocessableEntity, CodeValidationFailed,
			fmt.Sprintf("job %s named no template of this service (templateId %q), so it has no version %d: send its source instead", job.ID, job.TemplateID, n),
			fieldError{Field: "version", Code: CodeValidationFailed, Message: "the recorded job names no template"})
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	v, err := s.store.Version(ctx, id, n)
	switch {
	case errors.Is(err, templates.ErrVersionNotFound): // before ErrNotFound, which it wraps
		return "", newError(http.StatusNotFound, CodeNotFound,
			fmt.Sprintf("template %s has no version %d: GET %s/script-templates/%s/versions lists its versions", id, n, s.prefix, id))
	case errors.Is(err, templates.ErrNotFound):
		return "", newError(http.StatusNotFound, CodeNotFound, fmt.Sprintf("no template has id %s (named by job %s)", id, job.ID))
	case err != nil:
		return "", s.storeError(r, err)
	}
	return v.Source, nil
}

// loadFailure reads the failure record of jobID over a connection of its
// own: replays are rare and driven by people, and a connection per replay
// holds nothing open between them.
func (s *Server) loadFailure(ctx context.Context, jobID string) (failrecord.Record, *httpError) {
	// The cause (the broker's address, its user, its error) is the
	// operator's: it goes to the log, under the request's id, and the caller
	// is told to try again.
	unavailable := func(err error) *httpError {
		s.log.WarnContext(ctx, "reading a failure record", "job_id", jobID, "error", err.Error())
		return newError(http.StatusServiceUnavailable, CodeFailuresUnavailable,
			"the failures stream cannot be read right now: try again in a few seconds (the service's log has the cause under this request's id)").with("Retry-After", "5")
	}
	ctx, cancel := context.WithTimeout(ctx, replayNATSTimeout)
	defer cancel()
	urls, err := natsurl.Parse(s.cfg.NATSURL)
	if err != nil {
		return failrecord.Record{}, unavailable(fmt.Errorf("NATS_URL: %w", err))
	}
	opts := []nats.Option{nats.Name("flowscript templates-api replay"), nats.Timeout(replayNATSTimeout)}
	if s.cfg.NATSCreds != "" {
		opts = append(opts, nats.UserCredentials(s.cfg.NATSCreds))
	}
	nc, err := nats.Connect(natsurl.Join(urls), opts...)
	if err != nil {
		return failrecord.Record{}, unavailable(fmt.Errorf("connecting to NATS at %s: %w", natsurl.Redact(s.cfg.NATSURL), err))
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return failrecord.Record{}, unavailable(err)
	}
	subjects := flowjob.Subjects{Prefix: s.cfg.SubjectPrefix}
	rec, err := failrecord.Load(ctx, js, s.failuresStream(), subjects, jobID)
	switch {
	case errors.Is(err, failrecord.ErrNoRecord), errors.Is(err, failrecord.ErrNoStream):
		return failrecord.Record{}, newError(http.StatusNotFound, CodeNotFound, err.Error())
	case err != nil:
		return failrecord.Record{}, unavailable(err)
	}
	return rec, nil
}

// failuresStream is the executor's failures stream.
func (s *Server) failuresStream() string {
	return failrecord.StreamName(cmp.Or(s.cfg.JobsStream, flowjob.DefaultJobsStream))
}

// validateReplay checks the variables of replays: NATS_URL when set, and
// the executor's names.
func (c Config) validateReplay() []error {
	var errs []error
	if c.NATSURL != "" {
		if _, err := natsurl.Parse(c.NATSURL); err != nil {
			errs = append(errs, fmt.Errorf("NATS_URL must be one URL or a comma-separated list such as nats://nats-1:4222,nats://nats-2:4222: %w", err))
		}
	}
	if c.NATSCreds != "" && c.NATSURL == "" {
		errs = append(errs, errors.New("NATS_CREDS is set but NATS_URL is empty: set NATS_URL to the executor's NATS"))
	}
	if s := c.JobsStream; s != "" && !flowjob.ValidStreamName(s) {
		errs = append(errs, fmt.Errorf("JOBS_STREAM must be a name of letters, digits, '-' or '_', got %q", s))
	}
	if p := c.SubjectPrefix; p != "" && !flowjob.ValidSubjectPrefix(p) {
		errs = append(errs, fmt.Errorf("SUBJECT_PREFIX must be dot-separated tokens without wildcards or spaces, got %q", p))
	}
	return errs
}
