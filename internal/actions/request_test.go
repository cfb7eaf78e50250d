package actions

import (
	"slices"
	"testing"
	"time"

	"github.com/flowscript/flowscript/flowjob"
	"github.com/flowscript/flowscript/internal/sandbox"
)

func TestRequestInterpolatesInputsInOrder(t *testing.T) {
	job := baseJob()
	job.Action.InputVariables = []flowjob.InputVariable{
		{Name: "z", Value: "{{ contact.name }}"},
		{Name: "a", Value: "cpf={{cpf}} {{missing}}!"},
		{Name: "m", Value: "{{inject}}"},
	}
	job.Variables = map[string]string{"contact.name": "Ana", "cpf": "123", "inject": "{{cpf}}"}
	got := Request(job, 5*time.Second)
	want := []sandbox.Input{{Name: "z", Value: "Ana"}, {Name: "a", Value: "cpf=123 !"}, {Name: "m", Value: "{{cpf}}"}}
	if !slices.Equal(got.Inputs, want) || got.Source != job.Action.Source {
		t.Fatalf("Request = %+v, want inputs %+v", got, want)
	}
	if job.Action.InputVariables[0].Value != "{{ contact.name }}" {
		t.Fatal("Request changed the job")
	}
}

func TestRequestTimeout(t *testing.T) {
	for _, tc := range []struct {
		jobMs int
		max   time.Duration
		want  time.Duration
	}{
		{0, 5 * time.Second, 5 * time.Second},
		{1000, 5 * time.Second, time.Second},
		{5000, 5 * time.Second, 5 * time.Second},
		{60000, 5 * time.Second, 5 * time.Second},
		{1, 1500 * time.Microsecond, 1500 * time.Microsecond},
		{250, 0, 250 * time.Millisecond},
		{0, 0, 0},
		{int(^uint(0) >> 1), 0, (1<<63 - 1) / time.Millisecond * time.Millisecond},
	} {
		job := baseJob()
		job.TimeoutMs = tc.jobMs
		if got := Request(job, tc.max).Timeout; got != tc.want {
			t.Errorf("timeoutMs %d, max %v: Timeout = %v, want %v", tc.jobMs, tc.max, got, tc.want)
		}
	}
}

func TestRequestNilJob(t *testing.T) {
	if got := Request(nil, time.Second); got.Source != "" || got.Inputs != nil || got.Timeout != time.Second {
		t.Fatalf("Request(nil) = %+v", got)
	}
}
