package metrics

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.yaml.in/yaml/v2"
)

const alertRules = "../../deploy/prometheus/rtype-alerts.yml"

// TestAlertRules: the shipped alert rules (deploy/prometheus/rtype-alerts.yml) are a Prometheus
// rule file — each rule named, with an expression, a `for` that parses, a severity — every
// metric an expression names is one this server exports (a renamed metric would silently
// never fire), rtype_scores_failing has its alert, and promtool accepts the file where it is
// installed.
func TestAlertRules(t *testing.T) {
	b, err := os.ReadFile(alertRules)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				For         string            `yaml:"for"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.UnmarshalStrict(b, &f); err != nil {
		t.Fatalf("%s: %v", alertRules, err)
	}
	exported := map[string]bool{}
	ch := make(chan *prometheus.Desc, 256)
	for _, c := range []prometheus.Collector{&hallCollector{}, &lobbyCollector{}, &gameCollector{}, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		c.Describe(ch)
	}
	close(ch)
	fq := regexp.MustCompile(`fqName: "([a-z_:]+)"`)
	for d := range ch {
		if m := fq.FindStringSubmatch(d.String()); m != nil {
			exported[m[1]] = true
		}
	}
	ident := regexp.MustCompile(`\b(rtype_[a-z_]+|process_[a-z_]+)\b`)
	alerts := map[string]bool{}
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			alerts[r.Alert] = true
			if r.Alert == "" || r.Expr == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("rule %+v: want alert, expr, a severity label and a summary", r)
			}
			if _, err := time.ParseDuration(r.For); err != nil {
				t.Errorf("%s: for %q: %v", r.Alert, r.For, err)
			}
			for _, m := range ident.FindAllString(r.Expr, -1) {
				name := strings.TrimSuffix(m, "_bucket")
				if !exported[name] {
					t.Errorf("%s: %s is not a metric the server exports", r.Alert, m)
				}
			}
		}
	}
	if !alerts["RtypeScoresFailing"] {
		t.Error("no alert on rtype_scores_failing")
	}
	if p, err := exec.LookPath("promtool"); err == nil {
		if out, err := exec.Command(p, "check", "rules", alertRules).CombinedOutput(); err != nil {
			t.Errorf("promtool check rules: %v\n%s", err, out)
		}
	} else {
		t.Log("promtool not installed: the file is checked as YAML and against the exported metrics only")
	}
}
