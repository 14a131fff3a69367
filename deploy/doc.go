// Package deploy holds what runs spotbot as a service: the systemd unit
// (spotbot.service), its environment file (spotbot.env.example) and
// Prometheus alert rules (alerts.yml). Its tests check them; see
// docs/deploy.md.
package deploy
