// Command lint checks the Dockerfile and docker-compose.yml without a
// Docker engine, for CI machines that have none: the Dockerfile with
// BuildKit's own linter (the rules of `docker build --check`), the compose
// file with the loader of `docker compose config` (compose-go), and both
// against what the project needs (a non-root image that owns /data, a
// healthcheck, pinned images, only the ports a user opens published).
//
//	go run . ../../Dockerfile ../../docker-compose.yml
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/client/llb/sourceresolver"
	"github.com/moby/buildkit/frontend/dockerfile/dockerfile2llb"
	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/opencontainers/go-digest"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: lint Dockerfile docker-compose.yml")
		os.Exit(2)
	}
	var problems []string
	problems = append(problems, lintDockerfile(os.Args[1])...)
	problems = append(problems, lintCompose(os.Args[2])...)
	for _, p := range problems {
		fmt.Println("lint:", p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
	fmt.Println("lint: Dockerfile and compose file OK")
}

// lintDockerfile runs BuildKit's lint rules on the Dockerfile at path and
// checks its last stage: it runs as uid 65532, owns /data and has a
// HEALTHCHECK.
func lintDockerfile(path string) []string {
	dt, err := os.ReadFile(path)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	sm := llb.NewSourceMap(nil, filepath.Base(path), "Dockerfile", dt)
	sm.Definition = &llb.Definition{}
	res, err := dockerfile2llb.DockerfileLint(context.Background(), dt,
		dockerfile2llb.ConvertOpt{SourceMap: sm, MetaResolver: offline{}})
	if err != nil {
		return []string{path + ": " + err.Error()}
	}
	if res.Error != nil {
		out = append(out, path+": "+res.Error.Message)
	}
	for _, w := range res.Warnings {
		line := 0
		if w.Location != nil && len(w.Location.Ranges) > 0 {
			line = int(w.Location.Ranges[0].Start.Line)
		}
		out = append(out, fmt.Sprintf("%s:%d: %s: %s", path, line, w.RuleName, w.Detail))
	}
	ast, err := parser.Parse(strings.NewReader(string(dt)))
	if err != nil {
		return append(out, path+": "+err.Error())
	}
	stages, _, err := instructions.Parse(ast.AST, nil)
	if err != nil || len(stages) == 0 {
		return append(out, fmt.Sprintf("%s: %v", path, err))
	}
	last := stages[len(stages)-1]
	var user string
	var health, dataOwned bool
	for _, cmd := range last.Commands {
		switch c := cmd.(type) {
		case *instructions.UserCommand:
			user = c.User
		case *instructions.HealthCheckCommand:
			health = c.Health != nil && len(c.Health.Test) > 0 && c.Health.Test[0] != "NONE"
		case *instructions.CopyCommand:
			if c.DestPath == "/data" && strings.HasPrefix(c.Chown, "65532") {
				dataOwned = true
			}
		}
	}
	if !strings.HasPrefix(user, "65532") && !strings.HasPrefix(user, "nonroot") {
		out = append(out, fmt.Sprintf("%s: the image runs as %q, want the non-root uid 65532", path, user))
	}
	if !health {
		out = append(out, path+": the image has no HEALTHCHECK")
	}
	if !dataOwned {
		out = append(out, path+": /data is not copied in owned by 65532, so a new volume on it is root's")
	}
	for _, s := range stages {
		if !strings.Contains(s.BaseName, ":") || strings.HasSuffix(s.BaseName, ":latest") {
			out = append(out, fmt.Sprintf("%s: FROM %s is not pinned to a version", path, s.BaseName))
		}
	}
	return out
}

// offline answers BuildKit's look-ups of base images with an empty
// linux/amd64 image config instead of asking a registry: the lint needs
// no network, and the rules that read a base image's config have nothing
// to say about these.
type offline struct{}

func (offline) ResolveImageConfig(_ context.Context, ref string, _ sourceresolver.Opt) (string, digest.Digest, []byte, error) {
	return ref, "", []byte(`{"architecture":"amd64","os":"linux","config":{}}`), nil
}

// lintCompose loads the compose file at path as `docker compose config`
// does, with an empty environment, and checks it: every image pinned, the
// app built here with a healthcheck, and no published port but the API's,
// the inbound SMTP server's (replies to decision emails) and the mail
// catcher's web UI.
func lintCompose(path string) []string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return []string{err.Error()}
	}
	opts, err := cli.NewProjectOptions([]string{abs}, cli.WithWorkingDirectory(filepath.Dir(abs)),
		cli.WithName("datamonsters"), cli.WithEnv(nil), cli.WithInterpolation(true))
	if err != nil {
		return []string{path + ": " + err.Error()}
	}
	project, err := opts.LoadProject(context.Background())
	if err != nil {
		return []string{path + ": " + err.Error()}
	}
	var out []string
	allowed := map[uint32]bool{8080: true, 2525: true, 8025: true}
	for name, s := range project.Services {
		if s.Build == nil {
			if i := strings.LastIndexByte(s.Image, ':'); i < 0 || s.Image[i+1:] == "latest" {
				out = append(out, fmt.Sprintf("%s: service %s: image %q is not pinned to a version", path, name, s.Image))
			}
		} else if s.HealthCheck == nil || s.HealthCheck.Disable || len(s.HealthCheck.Test) == 0 {
			out = append(out, fmt.Sprintf("%s: service %s: no healthcheck", path, name))
		}
		for _, p := range s.Ports {
			if !allowed[p.Target] {
				out = append(out, fmt.Sprintf("%s: service %s publishes port %d, which no user needs", path, name, p.Target))
			}
		}
	}
	if _, err := project.GetService("app"); err != nil {
		out = append(out, path+": no app service")
	}
	return out
}
