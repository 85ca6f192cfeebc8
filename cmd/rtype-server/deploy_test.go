package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rtype/rtype/net/agones"
	"github.com/rtype/rtype/net/server"
)

// manifest is the part of a Kubernetes object the checks read (JSON manifests: kubectl apply
// -f takes JSON, and encoding/json parses them without a YAML library).
type manifest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec  json.RawMessage `json:"spec"`
	Items []manifest      `json:"items"`
	// Secrets
	StringData map[string]string `json:"stringData"`
}

type container struct {
	Name  string   `json:"name"`
	Image string   `json:"image"`
	Args  []string `json:"args"`
	Env   []struct {
		Name      string `json:"name"`
		Value     string `json:"value"`
		ValueFrom struct {
			SecretKeyRef struct{ Name, Key string } `json:"secretKeyRef"`
		} `json:"valueFrom"`
	} `json:"env"`
	Ports []struct {
		Name          string `json:"name"`
		ContainerPort int    `json:"containerPort"`
		Protocol      string `json:"protocol"`
	} `json:"ports"`
	LivenessProbe, ReadinessProbe *struct {
		HTTPGet struct {
			Path string `json:"path"`
			Port string `json:"port"`
		} `json:"httpGet"`
	}
	SecurityContext struct {
		RunAsNonRoot bool `json:"runAsNonRoot"`
	} `json:"securityContext"`
	VolumeMounts []struct {
		Name      string `json:"name"`
		MountPath string `json:"mountPath"`
		ReadOnly  bool   `json:"readOnly"`
	} `json:"volumeMounts"`
}

type podSpec struct {
	Containers []container `json:"containers"`
	Volumes    []struct {
		Name                  string `json:"name"`
		PersistentVolumeClaim *struct {
			ClaimName string `json:"claimName"`
		} `json:"persistentVolumeClaim"`
	} `json:"volumes"`
}

// fileObject is one object of a manifest file.
type fileObject struct {
	manifest
	file string // its file's name in deploy/k8s
}

// manifests reads every object of deploy/k8s (the items of a List), each with its apiVersion,
// kind and name.
func manifests(t *testing.T) []fileObject {
	t.Helper()
	files, err := filepath.Glob("../../deploy/k8s/*.json")
	if err != nil || len(files) < 4 {
		t.Fatalf("manifests: %v %v", files, err)
	}
	var out []fileObject
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m manifest
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, o := range append([]manifest{m}, m.Items...) {
			if o.Kind == "List" {
				continue
			}
			if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
				t.Fatalf("%s: an object without apiVersion, kind or name", f)
			}
			out = append(out, fileObject{o, filepath.Base(f)})
		}
	}
	return out
}

// TestManifests parses every manifest of deploy/k8s and checks what the code relies on: the
// Fleet's port names and protocols (server.AgonesGamePort, AgonesControlPort) matching the
// host's -udp-port and -control, the games counter (agones.CounterGames) and its capacity
// matching -capacity, the health period against the host's pings, the autoscaler's counter,
// the lobby's allocator fleet and probes (/healthz, /readyz on -metrics), the control secret
// every container reads and that secrets.json defines, and that every argument is a flag of
// this binary.
func TestManifests(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(binary(t), "-h").CombinedOutput()
	if err != nil {
		t.Fatalf("-h: %v", err)
	}
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`).FindAllStringSubmatch(string(out), -1) {
		flags = append(flags, m[1])
	}
	objs := map[string]manifest{} // kind/name
	for _, o := range manifests(t) {
		objs[o.Kind+"/"+o.Metadata.Name] = o.manifest
	}
	need := func(key string) manifest {
		o, ok := objs[key]
		if !ok {
			t.Fatalf("no %s in deploy/k8s", key)
		}
		return o
	}
	argOf := func(c container, flag string) string {
		i := slices.Index(c.Args, "-"+flag)
		if i < 0 || i+1 >= len(c.Args) {
			return ""
		}
		return c.Args[i+1]
	}
	checkContainer := func(what string, c container) {
		for _, a := range c.Args {
			if strings.HasPrefix(a, "-") && !slices.Contains(flags, strings.TrimPrefix(a, "-")) {
				t.Errorf("%s: %s is not a flag of rtype-server", what, a)
			}
		}
		okSecret := false
		for _, e := range c.Env {
			if e.Name == "RTYPE_CONTROL_SECRET" {
				s := need("Secret/" + e.ValueFrom.SecretKeyRef.Name)
				_, okSecret = s.StringData[e.ValueFrom.SecretKeyRef.Key]
			}
		}
		if !okSecret {
			t.Errorf("%s: RTYPE_CONTROL_SECRET does not come from a key of secrets.json", what)
		}
		if !c.SecurityContext.RunAsNonRoot {
			t.Errorf("%s: not runAsNonRoot", what)
		}
	}

	// The Fleet of hosts.
	fl := need("Fleet/rtype-hosts")
	var fs struct {
		Template struct {
			Spec struct {
				Ports []struct {
					Name, PortPolicy, Protocol, Container string
					ContainerPort                         int
				} `json:"ports"`
				Health struct {
					PeriodSeconds, FailureThreshold int
				} `json:"health"`
				Counters map[string]struct{ Count, Capacity int } `json:"counters"`
				Template struct {
					Spec podSpec `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		} `json:"template"`
	}
	if err := json.Unmarshal(fl.Spec, &fs); err != nil {
		t.Fatal(err)
	}
	ts := fs.Template.Spec
	if len(ts.Template.Spec.Containers) != 1 {
		t.Fatal("the Fleet's pod has not one container")
	}
	host := ts.Template.Spec.Containers[0]
	checkContainer("fleet", host)
	if argOf(host, "role") != server.RoleHost || !slices.Contains(host.Args, "-agones") {
		t.Errorf("fleet: args %v, want -role host -agones", host.Args)
	}
	ports := map[string]int{}
	for _, p := range ts.Ports {
		if p.PortPolicy != "Dynamic" || p.Container != host.Name {
			t.Errorf("fleet port %s: policy %s container %s, want Dynamic on %s", p.Name, p.PortPolicy, p.Container, host.Name)
		}
		ports[p.Name+"/"+p.Protocol] = p.ContainerPort
	}
	if p := ports[server.AgonesGamePort+"/UDP"]; p == 0 || strconv.Itoa(p) != argOf(host, "udp-port") {
		t.Errorf("fleet: UDP port %q is %d, the host's -udp-port %q", server.AgonesGamePort, p, argOf(host, "udp-port"))
	}
	if p := ports[server.AgonesControlPort+"/TCP"]; p == 0 || ":"+strconv.Itoa(p) != argOf(host, "control") {
		t.Errorf("fleet: TCP port %q is %d, the host's -control %q", server.AgonesControlPort, p, argOf(host, "control"))
	}
	c, ok := ts.Counters[agones.CounterGames]
	if !ok || c.Count != 0 || strconv.Itoa(c.Capacity) != argOf(host, "capacity") {
		t.Errorf("fleet: counter %q %+v, want count 0 and the capacity of -capacity %q", agones.CounterGames, c, argOf(host, "capacity"))
	}
	if h := ts.Health; h.PeriodSeconds*h.FailureThreshold <= 2*int(agones.DefaultHealthPeriod.Seconds()) {
		t.Errorf("fleet: health %+v leaves no room for the host's pings every %v", h, agones.DefaultHealthPeriod)
	}

	// The autoscaler keeps a buffer of free games on that Fleet.
	var as struct {
		FleetName string `json:"fleetName"`
		Policy    struct {
			Type    string `json:"type"`
			Counter struct {
				Key                                  string
				BufferSize, MinCapacity, MaxCapacity int
			} `json:"counter"`
		} `json:"policy"`
	}
	if err := json.Unmarshal(need("FleetAutoscaler/rtype-hosts-autoscaler").Spec, &as); err != nil {
		t.Fatal(err)
	}
	if as.FleetName != fl.Metadata.Name || as.Policy.Type != "Counter" || as.Policy.Counter.Key != agones.CounterGames || as.Policy.Counter.BufferSize <= 0 ||
		as.Policy.Counter.MinCapacity < as.Policy.Counter.BufferSize || as.Policy.Counter.MaxCapacity < as.Policy.Counter.MinCapacity {
		t.Errorf("autoscaler %+v", as)
	}

	// The lobby allocates on that Fleet and is probed on its metrics address.
	var ds struct {
		Replicas int `json:"replicas"`
		Template struct {
			Spec podSpec `json:"spec"`
		} `json:"template"`
	}
	if err := json.Unmarshal(need("Deployment/rtype-lobby").Spec, &ds); err != nil {
		t.Fatal(err)
	}
	if ds.Replicas != 1 {
		t.Errorf("lobby replicas %d: one lobby process holds every lobby (state in memory)", ds.Replicas)
	}
	lob := ds.Template.Spec.Containers[0]
	checkContainer("lobby", lob)
	if argOf(lob, "role") != server.RoleLobby || argOf(lob, "allocator-fleet") != fl.Metadata.Name || !strings.HasPrefix(argOf(lob, "allocator"), "https://") {
		t.Errorf("lobby args %v: want -role lobby, -allocator https://..., -allocator-fleet %s", lob.Args, fl.Metadata.Name)
	}
	metricsPort := map[string]int{}
	for _, p := range lob.Ports {
		metricsPort[p.Name] = p.ContainerPort
	}
	if ":"+strconv.Itoa(metricsPort["metrics"]) != argOf(lob, "metrics") || ":"+strconv.Itoa(metricsPort["lobby"]) != argOf(lob, "addr") {
		t.Errorf("lobby ports %v against -metrics %s -addr %s", metricsPort, argOf(lob, "metrics"), argOf(lob, "addr"))
	}
	if lob.LivenessProbe == nil || lob.LivenessProbe.HTTPGet.Path != "/healthz" || lob.ReadinessProbe == nil || lob.ReadinessProbe.HTTPGet.Path != "/readyz" ||
		lob.ReadinessProbe.HTTPGet.Port != "metrics" {
		t.Errorf("lobby probes: want GET /healthz and /readyz on the metrics port")
	}
	// The lobby keeps the hall of fame (every game, split or not): RTYPE_DATA is a writable mount
	// of a claim this list defines (the root filesystem is read-only).
	data := ""
	for _, e := range lob.Env {
		if e.Name == "RTYPE_DATA" {
			data = e.Value
		}
	}
	claim := ""
	for _, m := range lob.VolumeMounts {
		if m.MountPath == data && !m.ReadOnly {
			for _, v := range ds.Template.Spec.Volumes {
				if v.Name == m.Name && v.PersistentVolumeClaim != nil {
					claim = v.PersistentVolumeClaim.ClaimName
				}
			}
		}
	}
	if data == "" || claim == "" {
		t.Errorf("lobby: RTYPE_DATA %q is not a writable mount of a PersistentVolumeClaim", data)
	} else {
		need("PersistentVolumeClaim/" + claim)
	}
	var svc struct {
		Ports []struct {
			Port       int    `json:"port"`
			TargetPort string `json:"targetPort"`
			Protocol   string `json:"protocol"`
		} `json:"ports"`
	}
	if err := json.Unmarshal(need("Service/rtype-lobby").Spec, &svc); err != nil {
		t.Fatal(err)
	}
	if len(svc.Ports) != 1 || svc.Ports[0].TargetPort != "lobby" || svc.Ports[0].Protocol != "TCP" {
		t.Errorf("lobby service ports %+v", svc.Ports)
	}
	for _, k := range []string{"tls.crt", "tls.key", "ca.crt"} {
		if _, ok := need("Secret/rtype-allocator-tls").StringData[k]; !ok || !strings.Contains(strings.Join(lob.Args, " "), "/etc/rtype/allocator/"+k) {
			t.Errorf("allocator TLS file %s: not in the secret or not passed to the lobby", k)
		}
	}
}
