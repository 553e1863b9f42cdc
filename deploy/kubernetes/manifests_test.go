// Package kubernetes holds no code: its test decodes the manifests of this folder into
// the upstream Kubernetes and Prometheus Operator types, strictly (an unknown or
// misspelt field fails), and keeps them consistent with the exporter. It is a module of
// its own so that these types never reach a2abind's go.mod; test.sh runs it.
package kubernetes

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	monitoringv1alpha1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// objects decodes every document of file strictly into the type its kind names.
func objects(t *testing.T, file string) []any {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, doc := range regexp.MustCompile(`(?m)^---$`).Split(string(b), -1) {
		var head struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var obj any
		switch head.APIVersion + " " + head.Kind {
		case "v1 ConfigMap":
			obj = &corev1.ConfigMap{}
		case "v1 Secret":
			obj = &corev1.Secret{}
		case "v1 Service":
			obj = &corev1.Service{}
		case "apps/v1 Deployment":
			obj = &appsv1.Deployment{}
		case "monitoring.coreos.com/v1 Prometheus":
			obj = &monitoringv1.Prometheus{}
		case "monitoring.coreos.com/v1 PrometheusRule":
			obj = &monitoringv1.PrometheusRule{}
		case "monitoring.coreos.com/v1 ServiceMonitor":
			obj = &monitoringv1.ServiceMonitor{}
		case "monitoring.coreos.com/v1alpha1 ScrapeConfig":
			obj = &monitoringv1alpha1.ScrapeConfig{}
		default:
			t.Fatalf("%s: a document of kind %q %q this test does not know", file, head.APIVersion, head.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			t.Fatalf("%s: %s %s: %v", file, head.APIVersion, head.Kind, err)
		}
		out = append(out, obj)
	}
	return out
}

func all(t *testing.T) []any {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) < 4 {
		t.Fatalf("manifests: %v %v", files, err)
	}
	var out []any
	for _, f := range files {
		out = append(out, objects(t, f)...)
	}
	return out
}

// help is a2abind's --help for a command, from the module one folder up.
func help(t *testing.T, cmd string) string {
	t.Helper()
	c := exec.CommandContext(t.Context(), "go", "run", "./cmd/a2abind", cmd, "--help")
	c.Dir = filepath.Join("..", "..")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("a2abind %s --help: %v\n%s", cmd, err, out)
	}
	return string(out)
}

// TestManifestsDecodeAndMatchTheExporter: every manifest decodes strictly into its
// upstream type; every flag a container passes exists on that a2abind command; the
// PrometheusRule's groups are deploy/prometheus/a2abind-rules.yml's; the ScrapeConfig
// reads /sd and relabels to /probe through the exporter's Service, sharding on the agent.
func TestManifestsDecodeAndMatchTheExporter(t *testing.T) {
	helps := map[string]string{}
	flag := regexp.MustCompile(`^(--[a-z-]+)(=|$)`)
	var rule *monitoringv1.PrometheusRule
	var sc *monitoringv1alpha1.ScrapeConfig
	var svc *corev1.Service
	commands := map[string]bool{}
	for _, obj := range all(t) {
		switch o := obj.(type) {
		case *appsv1.Deployment:
			for _, c := range o.Spec.Template.Spec.Containers {
				if !strings.Contains(c.Image, "a2abind") {
					continue
				}
				cmd := c.Args[0]
				commands[cmd] = true
				if helps[cmd] == "" {
					helps[cmd] = help(t, cmd)
				}
				for _, a := range c.Args[1:] {
					m := flag.FindStringSubmatch(a)
					if m == nil || !regexp.MustCompile(`\s`+regexp.QuoteMeta(m[1])+`\s`).MatchString(helps[cmd]) {
						t.Errorf("%s: a2abind %s has no flag %q", o.Name, cmd, a)
					}
				}
			}
		case *monitoringv1.PrometheusRule:
			rule = o
		case *monitoringv1alpha1.ScrapeConfig:
			sc = o
		case *corev1.Service:
			if o.Name == "a2abind-exporter" {
				svc = o
			}
		}
	}
	if !commands["exporter"] || !commands["guard"] {
		t.Errorf("a2abind commands in the manifests: %v; want the exporter and the guard sidecar", commands)
	}
	if rule == nil || sc == nil || svc == nil {
		t.Fatalf("missing: PrometheusRule %v, ScrapeConfig %v, exporter Service %v", rule != nil, sc != nil, svc != nil)
	}

	shipped, err := os.ReadFile(filepath.Join("..", "prometheus", "a2abind-rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var want monitoringv1.PrometheusRuleSpec
	if err := yaml.UnmarshalStrict(shipped, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rule.Spec, want) {
		t.Errorf("the PrometheusRule's groups differ from deploy/prometheus/a2abind-rules.yml")
	}

	exporter := svc.Name + "." + svc.Namespace + ".svc:9115"
	if len(sc.Spec.HTTPSDConfigs) != 1 || string(sc.Spec.HTTPSDConfigs[0].URL) != "http://"+exporter+"/sd" ||
		sc.Spec.MetricsPath == nil || *sc.Spec.MetricsPath != "/probe" {
		t.Errorf("the ScrapeConfig should read http://%s/sd and scrape /probe", exporter)
	}
	var last monitoringv1.RelabelConfig
	shardOnAgent := false
	for i, r := range sc.Spec.RelabelConfigs {
		if r.TargetLabel == "__tmp_hash" && reflect.DeepEqual(r.SourceLabels, []monitoringv1.LabelName{"__address__"}) && i == 0 {
			shardOnAgent = true
		}
		last = r
	}
	if !shardOnAgent || last.TargetLabel != "__address__" || last.Replacement == nil || *last.Replacement != exporter {
		t.Errorf("the ScrapeConfig must set __tmp_hash from the agent's address first and send __address__ to %s last", exporter)
	}
	if !bytes.Contains([]byte(helps["exporter"]), []byte("/sd")) {
		t.Errorf("a2abind exporter --help does not mention /sd")
	}
}
