// Package deploy holds how hark is deployed as people deploy it: the
// systemd unit (systemd/hark@.service), the nginx configuration
// (nginx/hark.conf) and the container image (../Dockerfile), with the tests
// that run them: systemd-analyze verify on the unit, a real nginx on
// loopback in front of a real gateway, and the image's build steps
// checked against the README's. It has no code of its own.
package deploy
