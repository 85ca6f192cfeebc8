package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/net/server"
)

// The checks the API server and the kubelet make of what deploy/k8s asks of them (Kubernetes'
// validation of names, ports and security contexts, the kubelet's runAsNonRoot rule), written
// from the Kubernetes API reference: no cluster runs here. Each rule is one a pod of these
// manifests would be refused or fail by.

var (
	dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)                       // container names, ≤ 63
	ianaSvcName  = regexp.MustCompile(`^[a-z0-9]([a-z0-9]|-[a-z0-9])*$`)                       // port names, ≤ 15, a letter
	quantity     = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$`) // resource quantities
)

// The fields of PodSecurityContext and SecurityContext (API reference, core/v1): a misspelt one
// is dropped by a lax client and the pod runs without it.
var (
	podSecurityFields = []string{"appArmorProfile", "fsGroup", "fsGroupChangePolicy", "runAsGroup", "runAsNonRoot", "runAsUser",
		"seLinuxChangePolicy", "seLinuxOptions", "seccompProfile", "supplementalGroups", "supplementalGroupsPolicy", "sysctls", "windowsOptions"}
	containerSecurityFields = []string{"allowPrivilegeEscalation", "appArmorProfile", "capabilities", "privileged", "procMount",
		"readOnlyRootFilesystem", "runAsGroup", "runAsNonRoot", "runAsUser", "seLinuxOptions", "seccompProfile", "windowsOptions"}
)

type kPort struct {
	Name          string `json:"name"`
	ContainerPort int    `json:"containerPort"`
	Protocol      string `json:"protocol"`
}

type kProbe struct {
	HTTPGet *struct {
		Path string          `json:"path"`
		Port json.RawMessage `json:"port"`
	} `json:"httpGet"`
}

type kContainer struct {
	Name            string                     `json:"name"`
	Ports           []kPort                    `json:"ports"`
	SecurityContext map[string]json.RawMessage `json:"securityContext"`
	LivenessProbe   *kProbe                    `json:"livenessProbe"`
	ReadinessProbe  *kProbe                    `json:"readinessProbe"`
	VolumeMounts    []struct {
		Name     string `json:"name"`
		ReadOnly bool   `json:"readOnly"`
	} `json:"volumeMounts"`
	Resources struct {
		Requests map[string]string `json:"requests"`
		Limits   map[string]string `json:"limits"`
	} `json:"resources"`
}

type kPodSpec struct {
	TerminationGracePeriodSeconds int                        `json:"terminationGracePeriodSeconds"`
	SecurityContext               map[string]json.RawMessage `json:"securityContext"`
	Containers                    []kContainer               `json:"containers"`
	Volumes                       []struct {
		Name                  string          `json:"name"`
		PersistentVolumeClaim json.RawMessage `json:"persistentVolumeClaim"`
		EmptyDir              json.RawMessage `json:"emptyDir"`
		Secret                json.RawMessage `json:"secret"`
	} `json:"volumes"`
}

// dockerUser is the final stage's USER of deploy/Dockerfile, and its other instructions.
func dockerfile(t *testing.T) (user string, lines map[string][]string) {
	b, err := os.ReadFile("../../deploy/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	lines = map[string][]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l == "" || l[0] == '#' {
			continue
		}
		ins, rest, _ := strings.Cut(l, " ")
		if ins = strings.ToUpper(ins); ins == "FROM" {
			lines = map[string][]string{} // a new stage: the last one is the image
		}
		lines[ins] = append(lines[ins], strings.TrimSpace(rest))
	}
	if u := lines["USER"]; len(u) > 0 {
		user = u[len(u)-1]
	}
	return user, lines
}

// TestDockerfile: the image's USER is numeric (the kubelet refuses runAsNonRoot for a user
// name it cannot check), its data directory (RTYPE_DATA) is a VOLUME so `docker run -v` keeps
// the hall of fame, and its HEALTHCHECK runs this binary's health command against the metrics
// address the image sets.
func TestDockerfile(t *testing.T) {
	t.Parallel()
	user, ins := dockerfile(t)
	uid, gid, _ := strings.Cut(user, ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		t.Errorf("USER %q: want a numeric non-root uid", user)
	} else if m, err := strconv.Atoi(gid); gid != "" && (err != nil || m == 0) {
		t.Errorf("USER %q: want a numeric non-root gid", user)
	}
	env := map[string]string{}
	for _, e := range ins["ENV"] {
		for _, kv := range strings.Fields(e) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
	}
	if d := env["RTYPE_DATA"]; d == "" || !slices.Contains(ins["VOLUME"], d) {
		t.Errorf("RTYPE_DATA %q is not a VOLUME (%v)", d, ins["VOLUME"])
	}
	hc := strings.Join(ins["HEALTHCHECK"], " ")
	if !strings.Contains(hc, `"health"`) || env["RTYPE_METRICS"] == "" {
		t.Errorf("HEALTHCHECK %q with RTYPE_METRICS %q: want rtype-server health on the metrics address", hc, env["RTYPE_METRICS"])
	}
	_, port, _ := strings.Cut(env["RTYPE_METRICS"], ":")
	if !slices.ContainsFunc(ins["EXPOSE"], func(e string) bool { return strings.Contains(" "+e+" ", " "+port+"/tcp ") }) {
		t.Errorf("EXPOSE %v does not publish the metrics port %s", ins["EXPOSE"], port)
	}
	// The health command exists and reports a closed port as unhealthy (exit 1, not a usage error).
	err := exec.Command(binary(t), "health", "-metrics", "127.0.0.1:"+strconv.Itoa(freePort(t))).Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("rtype-server health of a closed port: %v, want exit 1", err)
	}
}

// TestManifestsKubelet checks every pod of deploy/k8s as the API server and the kubelet would:
// names and ports valid, resource quantities parse, probes and mounts refer to what exists,
// security contexts spelt as the API has them, a non-root pod given a numeric runAsUser equal to
// the image's USER and an fsGroup when it writes to a volume, and the LoadBalancer Service
// keeping the players' addresses (externalTrafficPolicy Local: the lobby's per-address limits).
func TestManifestsKubelet(t *testing.T) {
	t.Parallel()
	user, _ := dockerfile(t)
	imageUID, _, _ := strings.Cut(user, ":")
	pods := 0
	for _, fo := range manifests(t) {
		o := fo.manifest
		what := fo.file + " " + o.Kind + "/" + o.Metadata.Name
		var spec kPodSpec
		switch o.Kind {
		case "Deployment":
			var d struct {
				Template struct {
					Spec kPodSpec `json:"spec"`
				} `json:"template"`
			}
			mustJSON(t, what, o.Spec, &d)
			spec = d.Template.Spec
		case "Fleet":
			var fl struct {
				Template struct {
					Spec struct {
						Template struct {
							Spec kPodSpec `json:"spec"`
						} `json:"template"`
					} `json:"spec"`
				} `json:"template"`
			}
			mustJSON(t, what, o.Spec, &fl)
			spec = fl.Template.Spec.Template.Spec
		case "Service":
			var s struct {
				Type                  string `json:"type"`
				ExternalTrafficPolicy string `json:"externalTrafficPolicy"`
			}
			mustJSON(t, what, o.Spec, &s)
			if s.Type == "LoadBalancer" && s.ExternalTrafficPolicy != "Local" {
				t.Errorf("%s: a LoadBalancer with externalTrafficPolicy %q: the lobby would see node addresses, not players' (want Local)", what, s.ExternalTrafficPolicy)
			}
			continue
		default:
			continue
		}
		pods++
		checkPod(t, what, spec, imageUID)
	}
	if pods < 2 {
		t.Fatalf("%d pod templates checked, want the lobby's and the Fleet's", pods)
	}
}

func mustJSON(t *testing.T, what string, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func checkPod(t *testing.T, what string, spec kPodSpec, imageUID string) {
	t.Helper()
	// A pod's deletion is a SIGTERM, then SIGKILL after the grace: the drain must fit in it.
	if g := time.Duration(spec.TerminationGracePeriodSeconds) * time.Second; g <= server.DefaultDrainTimeout {
		t.Errorf("%s: terminationGracePeriodSeconds %d does not let the drain (-drain-timeout %v) end the games", what, spec.TerminationGracePeriodSeconds, server.DefaultDrainTimeout)
	}
	for k := range spec.SecurityContext {
		if !slices.Contains(podSecurityFields, k) {
			t.Errorf("%s: pod securityContext has no field %q", what, k)
		}
	}
	podInt := func(k string) string { return string(spec.SecurityContext[k]) }
	volumes := map[string]bool{}
	writableVolume := map[string]bool{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = true
		writableVolume[v.Name] = v.PersistentVolumeClaim != nil || v.EmptyDir != nil
	}
	for _, c := range spec.Containers {
		cw := what + " container " + c.Name
		if len(c.Name) > 63 || !dns1123Label.MatchString(c.Name) {
			t.Errorf("%s: not a DNS-1123 label", cw)
		}
		names := map[string]bool{}
		for _, p := range c.Ports {
			if len(p.Name) > 15 || !ianaSvcName.MatchString(p.Name) || !strings.ContainsAny(p.Name, "abcdefghijklmnopqrstuvwxyz") {
				t.Errorf("%s: port name %q is not an IANA_SVC_NAME", cw, p.Name)
			}
			if p.ContainerPort < 1 || p.ContainerPort > 65535 || !slices.Contains([]string{"TCP", "UDP", "SCTP"}, p.Protocol) {
				t.Errorf("%s: port %+v", cw, p)
			}
			names[p.Name] = true
		}
		for _, pr := range []*kProbe{c.LivenessProbe, c.ReadinessProbe} {
			if pr == nil || pr.HTTPGet == nil {
				continue
			}
			var named string
			if json.Unmarshal(pr.HTTPGet.Port, &named) == nil && !names[named] {
				t.Errorf("%s: probe on port %q, which the container does not name", cw, named)
			}
		}
		for _, q := range []map[string]string{c.Resources.Requests, c.Resources.Limits} {
			for k, v := range q {
				if !quantity.MatchString(v) {
					t.Errorf("%s: resource %s %q is not a quantity", cw, k, v)
				}
			}
		}
		for k := range c.SecurityContext {
			if !slices.Contains(containerSecurityFields, k) {
				t.Errorf("%s: securityContext has no field %q", cw, k)
			}
		}
		// The container's field wins over the pod's.
		eff := func(k string) string {
			if v, ok := c.SecurityContext[k]; ok {
				return string(v)
			}
			return podInt(k)
		}
		if eff("runAsNonRoot") == "true" {
			if uid := eff("runAsUser"); uid == "" || uid == "0" {
				t.Errorf("%s: runAsNonRoot without a numeric runAsUser: the kubelet cannot check the image's user and refuses to start it", cw)
			} else if uid != imageUID {
				t.Errorf("%s: runAsUser %s, the image's USER is %s", cw, uid, imageUID)
			}
		}
		for _, vm := range c.VolumeMounts {
			if !volumes[vm.Name] {
				t.Errorf("%s: mounts volume %q, which the pod does not define", cw, vm.Name)
			}
			if writableVolume[vm.Name] && !vm.ReadOnly && eff("runAsUser") != "0" && podInt("fsGroup") == "" {
				t.Errorf("%s: writes to volume %q as a non-root user with no pod fsGroup: a fresh volume is root's and the server cannot create its files", cw, vm.Name)
			}
		}
	}
}
