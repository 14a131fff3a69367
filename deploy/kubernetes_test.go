package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/spotbot/spotbot/app"
	"github.com/spotbot/spotbot/strategies"
)

type manifest struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Template struct {
			Spec struct {
				Containers []struct {
					Name    string   `yaml:"name"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func manifests(t *testing.T, file string) []manifest {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var out []manifest
	for {
		var m manifest
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, m)
	}
}

// The Kubernetes examples are the documents docs/distributed.md names,
// and the worker's arguments are flags "backtest worker" takes.
func TestKubernetesManifests(t *testing.T) {
	t.Parallel()
	var kinds []string
	for _, m := range manifests(t, "kubernetes/nats.yaml") {
		kinds = append(kinds, m.Kind+"/"+m.Metadata.Name)
	}
	if want := []string{"ConfigMap/nats-config", "StatefulSet/nats", "Service/nats"}; !slices.Equal(kinds, want) {
		t.Fatalf("nats.yaml: %v, want %v", kinds, want)
	}
	ws := manifests(t, "kubernetes/workers.yaml")
	if len(ws) != 1 || ws[0].Kind != "Deployment" || ws[0].APIVersion != "apps/v1" || len(ws[0].Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("workers.yaml: %+v", ws)
	}
	c := ws[0].Spec.Template.Spec.Containers[0]
	if !slices.Equal(c.Command[1:], []string{"backtest", "worker"}) {
		t.Fatalf("worker command %v", c.Command)
	}
	root := app.Backtest(strategies.NewRegistry())
	worker, _, err := root.Find([]string{"worker"})
	if err != nil {
		t.Fatal(err)
	}
	if err := worker.ParseFlags(c.Args); err != nil {
		t.Fatalf("worker args %v: %v", c.Args, err)
	}
	if q, _ := worker.Flags().GetString("queue"); q != "nats://nats:4222" {
		t.Fatalf("--queue %q", q)
	}
}
