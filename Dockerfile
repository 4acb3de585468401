# The image CI systems run vq jobs in (GitLab CI's image:, Jenkins agents,
# ...), built by goreleaser's dockers_v2 from the release binaries: a small
# base that has a shell (GitLab runs a job's script through sh), vq on PATH,
# a user that is not root, and no ENTRYPOINT, so the system's own command
# (the job's script) is what runs.
FROM alpine:3.22
ARG TARGETPLATFORM
RUN adduser -D -u 10001 vq
COPY $TARGETPLATFORM/vq /usr/local/bin/vq
USER vq
WORKDIR /home/vq
CMD ["vq", "--help"]
