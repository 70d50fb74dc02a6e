//! The development database as a Docker container, through the `docker` command: the kit's
//! throwaway containers go through testcontainers, which removes them, and this one must stay.
//! The container and its volume are named after the folder, so each checkout has its own.

use std::path::Path;
use std::process::Command;

use super::{DevServer, stable_hash};
use crate::error::KitError;

const IMAGE: &str = "postgres:16-alpine";
/// The port is published on 127.0.0.1 alone, so only this machine can use the password.
const PASSWORD: &str = "workbook";

fn name(dir: &Path) -> String {
    format!("idempotency-workbook-db-{:08x}", stable_hash(dir) as u32)
}

/// An engine on this machine that answers, and the `docker` command to talk to it. A remote
/// engine (`DOCKER_HOST=tcp://…`) would publish the port on another machine's loopback.
pub(super) fn available() -> bool {
    let remote = std::env::var("DOCKER_HOST").is_ok_and(|host| {
        host.starts_with("tcp://")
            && !host.starts_with("tcp://127.0.0.1")
            && !host.starts_with("tcp://localhost")
    });
    !remote
        && crate::servers::docker::engine_endpoint().is_some()
        && Command::new("docker")
            .arg("version")
            .output()
            .is_ok_and(|out| out.status.success())
}

fn docker(args: &[&str]) -> Result<String, KitError> {
    let output = Command::new("docker")
        .args(args)
        .output()
        .map_err(|e| KitError::provision("docker", e))?;
    if !output.status.success() {
        return Err(KitError::provision(
            format!("docker {}", args.join(" ")),
            String::from_utf8_lossy(&output.stderr).trim(),
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

pub(super) fn running(dir: &Path) -> Result<Option<DevServer>, KitError> {
    let name = name(dir);
    let running = Command::new("docker")
        .args(["inspect", "--format", "{{.State.Running}}", &name])
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "true");
    if !running {
        return Ok(None);
    }
    // "127.0.0.1:55012"
    let published = docker(&["port", &name, "5432/tcp"])?;
    let address = published.lines().next().unwrap_or_default().to_string();
    Ok(Some(DevServer {
        url: format!("postgres://postgres:{PASSWORD}@{address}/postgres"),
        description: format!(
            "the Docker container {name} (its data in the volume {name}), on {address}"
        ),
    }))
}

pub(super) fn stop(dir: &Path) -> Result<Option<DevServer>, KitError> {
    let Some(server) = running(dir)? else {
        return Ok(None);
    };
    docker(&["stop", &name(dir)])?;
    Ok(Some(server))
}

pub(super) fn start(dir: &Path) -> Result<DevServer, KitError> {
    if let Some(server) = running(dir)? {
        return Ok(server);
    }
    let name = name(dir);
    let exists = Command::new("docker")
        .args(["inspect", &name])
        .output()
        .is_ok_and(|out| out.status.success());
    if exists {
        docker(&["start", &name])?;
    } else {
        let volume = format!("{name}:/var/lib/postgresql/data");
        let password = format!("POSTGRES_PASSWORD={PASSWORD}");
        docker(&[
            "run",
            "--detach",
            "--name",
            &name,
            "--volume",
            &volume,
            "--env",
            &password,
            "--publish",
            "127.0.0.1::5432",
            IMAGE,
        ])?;
    }
    // The image's entrypoint initialises the volume, then restarts the server once; a server
    // that answers on TCP from inside the container is past that restart.
    for _ in 0..120 {
        let ready = Command::new("docker")
            .args([
                "exec",
                &name,
                "pg_isready",
                "-U",
                "postgres",
                "-h",
                "127.0.0.1",
            ])
            .output()
            .is_ok_and(|out| out.status.success());
        if ready {
            return running(dir)?.ok_or_else(|| {
                KitError::provision("Docker", format!("the container {name} stopped"))
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    Err(KitError::provision(
        "Docker",
        format!("the container {name} was not ready within a minute: see `docker logs {name}`"),
    ))
}
