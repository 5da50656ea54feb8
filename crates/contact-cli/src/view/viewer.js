// The replay of a trajectory on a 2D canvas, written for `contact view`
// (crates/contact-cli/src/view). No library: the projection is the orbit
// camera of view/camera.rs (same formulas); solids are drawn back to front
// by their mean depth (the painter's algorithm, Newell, Newell and Sancha
// 1972, without its overlap tests), back faces culled by Newell's face
// normal, polygons clipped at the near plane (Sutherland and Hodgman 1974,
// one plane); then the joints and the contact forces on top.
"use strict";

(function () {
  // ---- the report the xtask viewer check reads (#viewer-report) ----
  var report = { status: "starting", errors: [], canvas: null, frame: 0, bodies: [], played: 0 };
  function writeReport() {
    report.status = report.errors.length ? "error" : "ok";
    var element = document.getElementById("viewer-report");
    if (element) element.textContent = JSON.stringify(report);
    document.body.setAttribute("data-status", report.status);
    if (report.errors.length && document.title.indexOf("error") !== 0) {
      document.title = "error: " + report.errors[0] + " - " + document.title;
    }
  }
  window.addEventListener("error", function (event) {
    report.errors.push(String(event.message) + " (line " + event.lineno + ")");
    writeReport();
  });

  // ---- vectors [x, y, z] and quaternions [x, y, z, w] ----
  function add(a, b) { return [a[0] + b[0], a[1] + b[1], a[2] + b[2]]; }
  function sub(a, b) { return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]; }
  function scale(a, s) { return [a[0] * s, a[1] * s, a[2] * s]; }
  function dot(a, b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
  function cross(a, b) {
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  }
  function norm(a) { return Math.sqrt(dot(a, a)); }
  function normalise(a) { var n = norm(a); return n > 0 ? scale(a, 1 / n) : [0, 0, 0]; }
  // v' = v + 2w (q x v) + 2 q x (q x v), q the vector part.
  function rotate(q, v) {
    var u = [q[0], q[1], q[2]];
    var t = scale(cross(u, v), 2);
    return add(add(v, scale(t, q[3])), cross(u, t));
  }
  function quatMul(a, b) {
    return [
      a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
      a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
      a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
      a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]
    ];
  }
  // A pose [x, y, z, qx, qy, qz, qw] applied to a point of its body.
  function transform(pose, p) {
    return add([pose[0], pose[1], pose[2]], rotate(pose.slice(3, 7), p));
  }
  function compose(a, b) {
    var p = transform(a, [b[0], b[1], b[2]]);
    var q = quatMul(a.slice(3, 7), b.slice(3, 7));
    return [p[0], p[1], p[2], q[0], q[1], q[2], q[3]];
  }

  // ---- data ----
  var data = JSON.parse(document.getElementById("trajectory-data").textContent);
  var trajectory = data.trajectory;
  var bodies = trajectory.bodies;
  var frames = trajectory.frames;
  var camera = JSON.parse(JSON.stringify(data.camera));
  var options = { frame: 0, bodies: true, overlays: true, play: false };
  location.hash.replace(/^#/, "").split("&").forEach(function (part) {
    var kv = part.split("=");
    if (kv[0] === "frame") options.frame = Math.max(0, Math.min(frames.length - 1, parseInt(kv[1], 10) || 0));
    if (kv[0] === "bodies" && kv[1] === "off") options.bodies = false;
    if (kv[0] === "overlays" && kv[1] === "off") options.overlays = false;
    if (kv[0] === "play") options.play = true;
  });

  var PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"];
  var BACKGROUND = "#f7f7f4";

  // Each body's mesh in its frame: vertices and faces (counter-clockwise
  // from outside), a sphere's radius, or a half-space's normal.
  function boxMesh(h) {
    var vertices = [];
    for (var i = 0; i < 8; i++) {
      vertices.push([(i & 1 ? 1 : -1) * h[0], (i & 2 ? 1 : -1) * h[1], (i & 4 ? 1 : -1) * h[2]]);
    }
    var faces = [[0, 4, 6, 2], [1, 3, 7, 5], [0, 1, 5, 4], [2, 6, 7, 3], [0, 2, 3, 1], [4, 5, 7, 6]];
    return { vertices: vertices, faces: faces };
  }
  var sceneRadius = camera.distance * Math.sin(0.5 * camera.fov) / 1.1;
  var meshes = bodies.map(function (body, index) {
    var shape = body.shape;
    var colour = body.fixed ? "#a0a09a" : PALETTE[index % PALETTE.length];
    if (shape.box) return { kind: "mesh", mesh: boxMesh(shape.box.half_extents), colour: colour };
    if (shape.convex_hull) return { kind: "mesh", mesh: shape.convex_hull, colour: colour };
    if (shape.sphere) return { kind: "sphere", radius: shape.sphere.radius, colour: colour };
    if (shape.half_space) return { kind: "plane", normal: normalise(shape.half_space.normal), colour: colour };
    throw new Error("body " + index + ": unknown shape " + Object.keys(shape).join(","));
  });
  // Arrows: the 90th percentile of the run's contact forces is 25 % of
  // the scene's radius, so resting forces show beside impact spikes; an
  // arrow longer than the radius is cut there and drawn dark.
  var magnitudes = [];
  frames.forEach(function (frame) {
    (frame.contacts || []).forEach(function (c) {
      var f = norm(c.force);
      if (f > 0) magnitudes.push(f);
    });
  });
  magnitudes.sort(function (a, b) { return a - b; });
  var typicalForce = magnitudes.length ? magnitudes[Math.floor(0.9 * (magnitudes.length - 1))] : 0;
  var forceScale = typicalForce > 0 ? 0.25 * sceneRadius / typicalForce : 0;
  var longestArrow = sceneRadius;

  // ---- the camera (view/camera.rs) ----
  var canvas = document.getElementById("canvas");
  var context = canvas.getContext("2d");
  var width = 1, height = 1;
  function viewOf(cam) {
    var north = cross(cam.up, cam.east);
    var horizontal = add(scale(cam.east, Math.cos(cam.azimuth)), scale(north, Math.sin(cam.azimuth)));
    var direction = add(scale(horizontal, Math.cos(cam.elevation)), scale(cam.up, Math.sin(cam.elevation)));
    var eye = add(cam.target, scale(direction, cam.distance));
    var forward = normalise(sub(cam.target, eye));
    var right = normalise(cross(forward, cam.up));
    return {
      eye: eye, forward: forward, right: right, up: cross(right, forward),
      focal: 0.5 * Math.min(width, height) / Math.tan(0.5 * cam.fov),
      near: 1e-3 * cam.distance
    };
  }
  // View coordinates (right, up, forward) of a world point.
  function toView(view, p) {
    var q = sub(p, view.eye);
    return [dot(q, view.right), dot(q, view.up), dot(q, view.forward)];
  }
  function toScreen(view, v) {
    return [0.5 * width + view.focal * v[0] / v[2], 0.5 * height - view.focal * v[1] / v[2]];
  }
  // The pixel of a world point, null behind the near plane.
  function project(view, p) {
    var v = toView(view, p);
    return v[2] > view.near ? toScreen(view, v) : null;
  }
  // A polygon of view points cut to the part in front of the near plane.
  function clipNear(view, points) {
    var out = [];
    for (var i = 0; i < points.length; i++) {
      var a = points[i], b = points[(i + 1) % points.length];
      var aIn = a[2] > view.near, bIn = b[2] > view.near;
      if (aIn) out.push(a);
      if (aIn !== bIn) {
        var t = (view.near - a[2]) / (b[2] - a[2]);
        out.push(add(a, scale(sub(b, a), t)));
      }
    }
    return out;
  }

  // ---- drawing ----
  function shade(colour, brightness) {
    var r = parseInt(colour.slice(1, 3), 16), g = parseInt(colour.slice(3, 5), 16), b = parseInt(colour.slice(5, 7), 16);
    var f = Math.max(0, Math.min(1.2, brightness));
    return "rgb(" + Math.min(255, Math.round(r * f)) + "," + Math.min(255, Math.round(g * f)) + "," + Math.min(255, Math.round(b * f)) + ")";
  }
  function fillPolygon(view, viewPoints, fill, stroke) {
    var clipped = clipNear(view, viewPoints);
    if (clipped.length < 3) return;
    context.beginPath();
    clipped.forEach(function (v, i) {
      var s = toScreen(view, v);
      if (i === 0) context.moveTo(s[0], s[1]); else context.lineTo(s[0], s[1]);
    });
    context.closePath();
    context.fillStyle = fill;
    context.fill();
    if (stroke) { context.strokeStyle = stroke; context.lineWidth = 1; context.stroke(); }
  }
  function segment(view, a, b, colour, lineWidth) {
    var clipped = clipNear(view, [toView(view, a), toView(view, b)]);
    if (clipped.length < 2) return null;
    var s = toScreen(view, clipped[0]), e = toScreen(view, clipped[1]);
    context.beginPath();
    context.moveTo(s[0], s[1]);
    context.lineTo(e[0], e[1]);
    context.strokeStyle = colour;
    context.lineWidth = lineWidth;
    context.stroke();
    return [s, e];
  }
  function arrow(view, from, to, colour) {
    var ends = segment(view, from, to, colour, 2);
    if (!ends) return;
    var s = ends[0], e = ends[1];
    var dx = e[0] - s[0], dy = e[1] - s[1], length = Math.sqrt(dx * dx + dy * dy);
    if (length < 1) return;
    var head = Math.min(10, 0.35 * length), ux = dx / length, uy = dy / length;
    context.beginPath();
    context.moveTo(e[0], e[1]);
    context.lineTo(e[0] - head * (ux * 0.9 - uy * 0.4), e[1] - head * (uy * 0.9 + ux * 0.4));
    context.lineTo(e[0] - head * (ux * 0.9 + uy * 0.4), e[1] - head * (uy * 0.9 - ux * 0.4));
    context.closePath();
    context.fillStyle = colour;
    context.fill();
  }
  function dot2(s, radius, colour) {
    context.beginPath();
    context.arc(s[0], s[1], radius, 0, 2 * Math.PI);
    context.fillStyle = colour;
    context.fill();
  }

  function drawPlane(view, mesh, pose) {
    var normal = rotate(pose.slice(3, 7), mesh.normal);
    var origin = [pose[0], pose[1], pose[2]];
    var centre = sub(camera.target, scale(normal, dot(sub(camera.target, origin), normal)));
    var helper = Math.abs(normal[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
    var t1 = normalise(cross(normal, helper)), t2 = cross(normal, t1);
    var half = 3 * sceneRadius, lines = 12;
    var corner = function (a, b) { return add(centre, add(scale(t1, a * half), scale(t2, b * half))); };
    fillPolygon(view, [corner(-1, -1), corner(1, -1), corner(1, 1), corner(-1, 1)].map(function (p) {
      return toView(view, p);
    }), "#e3e3dc", null);
    for (var i = 0; i <= lines; i++) {
      var u = -1 + 2 * i / lines;
      segment(view, corner(u, -1), corner(u, 1), "#cfcfc6", 1);
      segment(view, corner(-1, u), corner(1, u), "#cfcfc6", 1);
    }
  }

  function draw(frameIndex) {
    var frame = frames[frameIndex];
    var view = viewOf(camera);
    context.setTransform(window.devicePixelRatio || 1, 0, 0, window.devicePixelRatio || 1, 0, 0);
    context.fillStyle = BACKGROUND;
    context.fillRect(0, 0, width, height);
    var light = normalise(add(add(scale(view.up, 0.7), scale(view.forward, -0.6)), scale(view.right, -0.3)));

    meshes.forEach(function (mesh, b) { if (mesh.kind === "plane") drawPlane(view, mesh, frame.poses[b]); });
    // Solids back to front.
    var items = [];
    if (options.bodies) {
      meshes.forEach(function (mesh, b) {
        var pose = frame.poses[b];
        var centre = [pose[0], pose[1], pose[2]];
        if (mesh.kind === "sphere") {
          var v = toView(view, centre);
          if (v[2] > view.near) items.push({ depth: v[2], sphere: mesh, pose: pose, centre: v });
        } else if (mesh.kind === "mesh") {
          var world = mesh.mesh.vertices.map(function (p) { return transform(pose, p); });
          mesh.mesh.faces.forEach(function (face) {
            var points = face.map(function (i) { return world[i]; });
            // Newell's normal, turned away from the body's centre.
            var n = [0, 0, 0], middle = [0, 0, 0];
            for (var i = 0; i < points.length; i++) {
              var a = points[i], c = points[(i + 1) % points.length];
              n = add(n, [(a[1] - c[1]) * (a[2] + c[2]), (a[2] - c[2]) * (a[0] + c[0]), (a[0] - c[0]) * (a[1] + c[1])]);
              middle = add(middle, a);
            }
            middle = scale(middle, 1 / points.length);
            n = normalise(n);
            if (dot(n, sub(middle, centre)) < 0) n = scale(n, -1);
            if (dot(n, sub(middle, view.eye)) >= 0) return;
            var viewPoints = points.map(function (p) { return toView(view, p); });
            var depth = viewPoints.reduce(function (s, v) { return s + v[2]; }, 0) / viewPoints.length;
            items.push({ depth: depth, points: viewPoints, fill: shade(mesh.colour, 0.5 + 0.6 * Math.max(0, dot(n, light))) });
          });
        }
      });
    }
    items.sort(function (a, b) { return b.depth - a.depth; });
    items.forEach(function (item) {
      if (item.points) {
        fillPolygon(view, item.points, item.fill, "rgba(0,0,0,0.35)");
        return;
      }
      var s = toScreen(view, item.centre), r = view.focal * item.sphere.radius / item.centre[2];
      var gradient = context.createRadialGradient(s[0] - 0.35 * r, s[1] - 0.35 * r, 0.1 * r, s[0], s[1], r);
      gradient.addColorStop(0, shade(item.sphere.colour, 1.25));
      gradient.addColorStop(1, shade(item.sphere.colour, 0.55));
      dot2(s, r, gradient);
      // A mark on the body's +x pole, so that turning shows.
      var pole = transform(item.pose, [item.sphere.radius, 0, 0]);
      var pv = toView(view, pole);
      if (pv[2] < item.centre[2] && pv[2] > view.near) dot2(toScreen(view, pv), Math.max(2, 0.12 * r), "rgba(0,0,0,0.6)");
    });

    if (options.overlays && document.getElementById("show-joints").checked) {
      trajectory.joints.forEach(function (joint) {
        var poseA = joint.body_a === null ? [0, 0, 0, 0, 0, 0, 1] : frame.poses[joint.body_a];
        var poseB = frame.poses[joint.body_b];
        var frameA = compose(poseA, joint.frame_a), frameB = compose(poseB, joint.frame_b);
        var anchorA = frameA.slice(0, 3), anchorB = frameB.slice(0, 3);
        if (joint.body_a !== null) segment(view, poseA.slice(0, 3), anchorA, "rgba(122,79,0,0.75)", 1.5);
        segment(view, poseB.slice(0, 3), anchorB, "rgba(122,79,0,0.75)", 1.5);
        var axis = scale(rotate(frameA.slice(3, 7), [0, 0, 1]), 0.15 * sceneRadius);
        if (joint.kind !== "ball") segment(view, sub(anchorA, axis), add(anchorA, axis), "#d08000", 3);
        var s = project(view, anchorA);
        if (s) {
          dot2(s, 4, "#d08000");
          context.fillStyle = "#7a4f00";
          context.font = "11px sans-serif";
          context.fillText(joint.kind, s[0] + 6, s[1] - 6);
        }
      });
    }
    if (options.overlays && document.getElementById("show-contacts").checked) {
      (frame.contacts || []).forEach(function (c) {
        if (forceScale > 0) {
          var f = norm(c.force), cut = f * forceScale > longestArrow;
          var length = cut ? longestArrow / f : forceScale;
          arrow(view, c.point, add(c.point, scale(c.force, length)), cut ? "#5a0010" : "#c0142c");
        }
        var s = project(view, c.point);
        if (s) dot2(s, 2.5, "#111");
      });
    }

    // The report: where each body's centre landed.
    report.frame = frameIndex;
    report.bodies = meshes.map(function (mesh, b) {
      if (mesh.kind === "plane") return null;
      var pose = frame.poses[b];
      return project(view, [pose[0], pose[1], pose[2]]);
    });
    var rect = canvas.getBoundingClientRect();
    report.canvas = { left: rect.left, top: rect.top, width: width, height: height };
    report.viewport = { width: window.innerWidth, height: window.innerHeight };
    hud(frameIndex);
  }

  function hud(frameIndex) {
    var frame = frames[frameIndex];
    var contacts = frame.contacts || [];
    var normalForce = contacts.reduce(function (s, c) { return s + Math.max(0, dot(c.force, c.normal)); }, 0);
    var lines = [
      (trajectory.scene || "trajectory") + "  (" + bodies.length + " bodies, " + trajectory.joints.length + " joints)",
      "t = " + frame.time.toFixed(4) + " s   step " + frame.step + "   h = " + frame.h.toExponential(2) + " s",
      "energy " + frame.energy.toPrecision(6) + " J   penetration " + frame.penetration.toExponential(2) + " m",
      frame.contacts ? contacts.length + " contacts, normal force " + normalForce.toPrecision(4) + " N" : "contacts not recorded"
    ];
    if (forceScale > 0) {
      lines.push("arrows: 1 m = " + (1 / forceScale).toPrecision(3) + " N (dark: cut at " +
        (longestArrow / forceScale).toPrecision(3) + " N)");
    }
    var previous = frameIndex > 0 ? frames[frameIndex - 1].step : -1;
    trajectory.events.filter(function (e) { return e.step > previous && e.step <= frame.step; }).slice(0, 5).forEach(function (e) {
      lines.push(e.kind.replace("_", " ") + ": " + name(e.bodies[0]) + " / " + name(e.bodies[1]));
    });
    document.getElementById("hud").textContent = lines.join("\n");
    document.getElementById("clock").textContent = "frame " + frameIndex + "/" + (frames.length - 1) + "  t " + frame.time.toFixed(3) + " s";
  }
  function name(b) { return bodies[b].name || "body " + b; }

  // ---- the timeline and the mouse ----
  var timeline = document.getElementById("timeline");
  var playButton = document.getElementById("play");
  var current = options.frame;
  var playing = false, lastWall = 0, playTime = 0;
  timeline.max = String(frames.length - 1);
  timeline.value = String(current);
  var ticks = document.getElementById("event-ticks");
  var tickFrames = {};
  // Events and frames are both in step order: one pass marks the first
  // frame at or after each event.
  var at = 0;
  trajectory.events.forEach(function (e) {
    while (at < frames.length && frames[at].step < e.step) at++;
    if (at < frames.length) tickFrames[at] = true;
  });
  Object.keys(tickFrames).slice(0, 300).forEach(function (i) {
    var option = document.createElement("option");
    option.value = i;
    ticks.appendChild(option);
  });

  function show(i) {
    current = Math.max(0, Math.min(frames.length - 1, i));
    timeline.value = String(current);
    draw(current);
    writeReport();
  }
  function setPlaying(on) {
    playing = on && frames.length > 1;
    playButton.textContent = playing ? "Pause" : "Play";
    if (!playing) return;
    if (current >= frames.length - 1) current = 0;
    playTime = frames[current].time;
    lastWall = performance.now();
    setTimeout(tick, 15);
  }
  function tick() {
    if (!playing) return;
    // A timer rather than requestAnimationFrame, which a headless browser
    // does not run on its virtual clock (the viewer check plays the page).
    var now = performance.now();
    playTime += Math.max(0, now - lastWall) / 1000 * parseFloat(document.getElementById("speed").value);
    lastWall = now;
    var i = current;
    while (i + 1 < frames.length && frames[i + 1].time <= playTime) i++;
    report.played++;
    show(i);
    if (i >= frames.length - 1) { setPlaying(false); return; }
    setTimeout(tick, 15);
  }
  playButton.addEventListener("click", function () { setPlaying(!playing); });
  timeline.addEventListener("input", function () { setPlaying(false); show(parseInt(timeline.value, 10)); });
  document.getElementById("show-contacts").addEventListener("change", function () { draw(current); });
  document.getElementById("show-joints").addEventListener("change", function () { draw(current); });
  document.getElementById("reset").addEventListener("click", function () {
    camera = JSON.parse(JSON.stringify(data.camera));
    draw(current);
  });
  window.addEventListener("keydown", function (event) {
    if (event.target.tagName === "SELECT") return;
    if (event.key === " ") { setPlaying(!playing); event.preventDefault(); }
    if (event.key === "ArrowRight") { setPlaying(false); show(current + 1); }
    if (event.key === "ArrowLeft") { setPlaying(false); show(current - 1); }
  });
  var drag = null;
  canvas.addEventListener("pointerdown", function (event) {
    drag = [event.clientX, event.clientY];
    canvas.setPointerCapture(event.pointerId);
  });
  canvas.addEventListener("pointermove", function (event) {
    if (!drag) return;
    camera.azimuth -= 0.01 * (event.clientX - drag[0]);
    camera.elevation = Math.max(-1.5, Math.min(1.5, camera.elevation + 0.01 * (event.clientY - drag[1])));
    drag = [event.clientX, event.clientY];
    draw(current);
  });
  canvas.addEventListener("pointerup", function () { drag = null; });
  canvas.addEventListener("wheel", function (event) {
    camera.distance *= Math.exp(0.001 * event.deltaY);
    event.preventDefault();
    draw(current);
  }, { passive: false });

  function resize() {
    var box = document.getElementById("view").getBoundingClientRect();
    var ratio = window.devicePixelRatio || 1;
    width = Math.max(1, Math.floor(box.width));
    height = Math.max(1, Math.floor(box.height));
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
    draw(current);
  }
  window.addEventListener("resize", function () { resize(); writeReport(); });

  try {
    resize();
  } catch (error) {
    report.errors.push(String(error && error.stack || error));
  }
  writeReport();
  if (options.play) setPlaying(true);
})();
