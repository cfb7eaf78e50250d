// Package deployments holds what runs FlowScript outside a developer's
// shell: the compose file for one machine (compose/), the container build
// (docker/), the Kubernetes manifests with KEDA autoscaling (k8s/), the
// Grafana dashboard (grafana/) and the Prometheus alert rules (prometheus/).
//
// The package has no code of its own. Its tests parse every file here and
// check it against the code: stream and consumer names against package
// flowjob, metric names against internal/telemetry, ports and environment
// variables against the services' Config structs, the build flags against
// the Makefile. A manifest must never name something the code does not
// read or export; renaming either side fails a test.
package deployments
