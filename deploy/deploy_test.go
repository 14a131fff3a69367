package deploy

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/spotbot/spotbot/config"
)

type rule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []rule `yaml:"rules"`
	} `yaml:"groups"`
}

// alerts.yml is a Prometheus rule file: it parses with only the rule
// file's keys, every rule has an expression, a severity and a summary, and
// every spotbot metric it reads is one the bot exports (listed in
// docs/observability.md).
func TestAlertRules(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var f ruleFile
	if err := dec.Decode(&f); err != nil {
		t.Fatal(err)
	}
	if len(f.Groups) != 1 || f.Groups[0].Name != "spotbot" {
		t.Fatalf("groups: %+v", f.Groups)
	}
	var names []string
	for _, r := range f.Groups[0].Rules {
		names = append(names, r.Alert)
		if r.Expr == "" || r.Annotations["summary"] == "" || !slices.Contains([]string{"critical", "warning"}, r.Labels["severity"]) {
			t.Errorf("%s: expr %q, labels %v, annotations %v", r.Alert, r.Expr, r.Labels, r.Annotations)
		}
	}
	want := []string{"SpotbotDown", "SpotbotTradingBlocked", "SpotbotKillSwitch", "SpotbotIPBanned", "SpotbotAPIErrors",
		"SpotbotMarketDataStale", "SpotbotJobFailed", "SpotbotClockOffset", "SpotbotRateBudgetHigh", "SpotbotStopped"}
	if !slices.Equal(names, want) {
		t.Errorf("alerts %v\nwant %v", names, want)
	}
	doc, err := os.ReadFile("../docs/observability.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`spotbot_[a-z_]+`).FindAllString(string(b), -1) {
		if !strings.Contains(string(doc), "`"+strings.TrimPrefix(m, "spotbot_")+"`") && !strings.Contains(string(doc), m) {
			t.Errorf("%s is not a metric of docs/observability.md", m)
		}
	}
}

// The unit runs `bot run --config`, reads the environment file, restarts
// on failure and is hardened; the example environment file holds no
// credential values.
func TestServiceUnit(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("spotbot.service")
	if err != nil {
		t.Fatal(err)
	}
	unit := string(b)
	for _, line := range []string{
		"ExecStart=/usr/local/bin/bot run --config /etc/spotbot/bot.yaml",
		"EnvironmentFile=/etc/spotbot/spotbot.env",
		"Restart=on-failure",
		"RestartPreventExitStatus=2",
		"NoNewPrivileges=yes",
		"ProtectSystem=strict",
		"ProtectHome=yes",
		"PrivateTmp=yes",
		"CapabilityBoundingSet=",
		"ReadWritePaths=/var/lib/spotbot",
	} {
		if !slices.Contains(strings.Split(unit, "\n"), line) {
			t.Errorf("spotbot.service lacks the line %q", line)
		}
	}
	env, err := os.ReadFile("spotbot.env.example")
	if err != nil {
		t.Fatal(err)
	}
	var environ []string
	for _, line := range strings.Split(string(env), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			environ = append(environ, line)
			if !strings.HasPrefix(k, "SPOTBOT_") {
				t.Errorf("%s is not a spotbot variable", k)
			}
			if (k == "SPOTBOT_API_KEY" || k == "SPOTBOT_API_SECRET") && v != "" {
				t.Errorf("%s has a value in the example", k)
			}
		}
	}
	// Every override is a configuration key the bot reads.
	if _, err := config.Load([]byte("mode: paper\nexchange: {base_url: 'http://127.0.0.1:1'}\n"), environ, nil, nil); err != nil {
		t.Errorf("the example's variables: %v", err)
	}
}
