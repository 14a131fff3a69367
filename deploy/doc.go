// Package deploy holds what runs spotbot as a service: the systemd unit
// (spotbot.service), its environment file (spotbot.env.example) and
// Prometheus alert rules (alerts.yml); and example Kubernetes manifests of
// distributed sweeps (kubernetes/: a NATS server with JetStream and the
// workers' Deployment). Its tests check them; see docs/deploy.md and
// docs/distributed.md.
package deploy
