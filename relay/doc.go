// Package relay is an in-cluster forward proxy that Pods and nodes use without
// credentials: it serves plain HTTP and CONNECT to the networks it is told to
// serve and authenticates to the upstream corporate proxy itself, with Basic,
// NTLMv2 (connection-bound: one upstream connection per tunnel or request) or
// Negotiate/Kerberos (a keytab or a password). The credentials are files of a
// mounted Secret, read again on every upstream connection, so a rotated
// password is used by the next request with nothing restarted.
//
// The proxykit-relay command (cmd/proxykit-relay) runs it; the relay chart
// (charts/proxy-relay) deploys it.
package relay
