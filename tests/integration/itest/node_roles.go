//go:build integration

package itest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// playNodeRole runs the node suite's helper roles inside its network namespace:
//   - "exec-env FILE -- CMD ARGS...": runs CMD with exactly the environment in FILE
//     (a JSON map: what systemd gives a unit from its drop-in) and PATH;
//   - "cri-pull SOCKET REF": pulls REF through containerd's CRI image service, as
//     the kubelet does, and prints "pulled" or "error: ...";
//   - "push-image HOST:PORT NAME:TAG [PATH=SOURCE|PATH->TARGET|cmd=ARG,ARG...]...":
//     pushes a one-layer linux/amd64 image to a registry over plain HTTP; without
//     entries its layer is one text file, with them it holds the files (SOURCE
//     copied from this machine), the symlinks and the command given;
//   - "tls-front ADDR UPSTREAM": serves UPSTREAM (a plain registry) over HTTPS on ADDR;
//   - "api-relay ADDR SOCKET": forwards TCP connections on ADDR to a Unix socket,
//     which the test serves outside the namespace (socket files cross network
//     namespaces), so that the node reaches the loopback API server at ADDR.
func playNodeRole(role string, args []string) (int, bool) {
	switch role {
	case "exec-env":
		raw, err := os.ReadFile(args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		var vars map[string]string
		if err := json.Unmarshal(raw, &vars); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		env := []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
		for k, v := range vars {
			env = append(env, k+"="+v)
		}
		cmd := args[2:] // after "--"
		path, err := lookPath(cmd[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		fmt.Fprintln(os.Stderr, syscall.Exec(path, cmd, env))
		return 1, true
	case "cri-pull":
		fmt.Println(criPull(args[0], args[1]))
		return 0, true
	case "tls-front":
		// HTTPS with httptest's own certificate in front of a plain registry: what a
		// registry with a certificate of its own looks like through an intercepting
		// proxy, which is told to skip verifying it (mitmproxy's ssl_insecure)
		l, err := net.Listen("tcp", args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		upstream, _ := url.Parse("http://" + args[1])
		server := httptest.NewUnstartedServer(httputil.NewSingleHostReverseProxy(upstream))
		server.Listener = l
		server.StartTLS()
		time.Sleep(10 * time.Minute) // the namespace's script kills it
		return 0, true
	case "api-relay":
		l, err := net.Listen("tcp", args[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		for {
			c, err := l.Accept()
			if err != nil {
				return 1, true
			}
			go Relay(c, func() (net.Conn, error) { return net.Dial("unix", args[1]) })
		}
	case "push-image":
		if err := pushImage(args[0], args[1], args[2:]...); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// relay copies between c and a connection dial makes, both ways, until either ends.
func Relay(c net.Conn, dial func() (net.Conn, error)) {
	defer c.Close()
	up, err := dial()
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, c); done <- struct{}{} }()
	go func() { io.Copy(c, up); done <- struct{}{} }()
	<-done
}

func lookPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/bin", "/sbin", "/bin"} {
		if _, err := os.Stat(dir + "/" + name); err == nil {
			return dir + "/" + name, nil
		}
	}
	return "", fmt.Errorf("%s not found", name)
}

// criPull asks containerd's CRI image service to pull ref.
func criPull(socket, ref string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return "error: " + err.Error()
	}
	defer conn.Close()
	_, err = runtimeapi.NewImageServiceClient(conn).PullImage(ctx, &runtimeapi.PullImageRequest{Image: &runtimeapi.ImageSpec{Image: ref}})
	if err != nil {
		return "error: " + strings.ReplaceAll(err.Error(), "\n", " ")
	}
	return "pulled"
}

// pushImage writes a one-layer image with the OCI distribution API: the blobs,
// then the manifest. Without entries the layer is a single text file; entries
// are PATH=SOURCE (a file of this machine, kept executable), PATH->TARGET (a
// symlink) and cmd=ARG,ARG... (the image's command).
func pushImage(registry, nameTag string, entries ...string) error {
	name, tag, _ := strings.Cut(nameTag, ":")
	var layer bytes.Buffer
	gz := gzip.NewWriter(&layer)
	tw := tar.NewWriter(gz)
	var cmd []string
	if len(entries) == 0 {
		content := []byte("proxykit node suite\n")
		if err := tw.WriteHeader(&tar.Header{Name: "etc/proxykit", Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		tw.Write(content)
	}
	for _, e := range entries {
		if args, ok := strings.CutPrefix(e, "cmd="); ok {
			cmd = strings.Split(args, ",")
			continue
		}
		if path, target, ok := strings.Cut(e, "->"); ok {
			if err := tw.WriteHeader(&tar.Header{Name: path, Linkname: target, Mode: 0o777, Typeflag: tar.TypeSymlink}); err != nil {
				return err
			}
			continue
		}
		path, source, _ := strings.Cut(e, "=")
		content, err := os.ReadFile(source)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: path, Mode: 0o755, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		tw.Write(content)
	}
	tw.Close()
	gz.Close()
	var raw bytes.Buffer // the uncompressed layer, for the config's diff_ids
	tr, _ := gzip.NewReader(bytes.NewReader(layer.Bytes()))
	io.Copy(&raw, tr)
	config, _ := json.Marshal(map[string]any{"architecture": "amd64", "os": "linux",
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{digest(raw.Bytes())}}, "config": map[string]any{"Cmd": cmd}})
	base := "http://" + registry + "/v2/" + name
	for _, blob := range [][]byte{layer.Bytes(), config} {
		resp, err := http.Post(base+"/blobs/uploads/", "", nil)
		if err != nil {
			return err
		}
		resp.Body.Close()
		location := resp.Header.Get("Location")
		if !strings.HasPrefix(location, "http") {
			location = "http://" + registry + location
		}
		sep := "?"
		if strings.Contains(location, "?") {
			sep = "&"
		}
		req, _ := http.NewRequest(http.MethodPut, location+sep+"digest="+digest(blob), bytes.NewReader(blob))
		req.Header.Set("Content-Type", "application/octet-stream")
		if resp, err = http.DefaultClient.Do(req); err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("blob upload: %s", resp.Status)
		}
	}
	manifest, _ := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
		"config": map[string]any{"mediaType": "application/vnd.oci.image.config.v1+json", "digest": digest(config), "size": len(config)},
		"layers": []any{map[string]any{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": digest(layer.Bytes()), "size": layer.Len()}}})
	req, _ := http.NewRequest(http.MethodPut, base+"/manifests/"+tag, bytes.NewReader(manifest))
	req.Header.Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("manifest: %s", resp.Status)
	}
	return nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
