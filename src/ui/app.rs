//! The painted app: panels, the live view with its overlay and the top-down
//! table view. Painting reads [`AppLogic`] and emits [`UiCommand`]s; it never
//! changes the game or the pipeline itself.
//!
//! # Conventions
//! - `ui_from_image` maps image pixels to screen points (a scale and an
//!   offset: the photo is shown undistorted-as-seen, the overlay goes
//!   through the lens with it).
//! - The top-down view is a map: table +x right, +y up on screen.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, unbounded};
use egui::{Color32, Key, Pos2, Rect, RichText, Sense, TextureHandle, TextureOptions, Vec2};
use nalgebra::Point2;

use super::logic::{AppLogic, SourceChoice, SourceStatus, UiCommand};
use super::overlay::{self, ScreenFromTable, band_index};
use super::pipeline::{LockSummary, SeenFigure};
use super::theme;
use crate::game::FigureId;

/// The UI repaints at most this often while a source is live; the camera
/// itself runs at 30 fps.
pub const UI_FRAME_PERIOD: Duration = Duration::from_millis(16);
/// How near a click must be to a figure's centre, points.
const PICK_RADIUS_PT: f32 = 18.0;

/// The eframe application.
pub struct SpotterApp {
    pub logic: AppLogic,
    texture: Option<(u64, TextureHandle)>,
    /// Where the live view was painted last frame (for the screenshot).
    live_rect: Option<Rect>,
    screenshot_results: (Sender<String>, Receiver<String>),
    commands: Vec<UiCommand>,
    applied_zoom: Option<bool>,
    /// Text fields of the game panel.
    scenario_path: String,
    game_path: String,
    typed_dice: String,
    /// The rule set the New game picker shows scenarios of.
    picker_rule_set: Option<String>,
    /// The Source section: a typed recording path, and the mode chosen per
    /// webcam (0: the camera's default, k: its mode k-1).
    recording_path: String,
    camera_modes: std::collections::BTreeMap<u32, usize>,
    /// The first screen of a new game (bind, select, say what next).
    first_game: super::first_game::FirstGame,
    /// The walk through the kit when there are no calibration files.
    first_run: super::first_run::FirstRun,
}

impl SpotterApp {
    pub fn new(logic: AppLogic) -> Self {
        // The picker starts on the scenario of the game that is open.
        let scenario_path = logic
            .session
            .as_ref()
            .and_then(|s| logic.scenarios.iter().find(|e| e.name == s.scenario_name))
            .map_or_else(
                || super::session::DEFAULT_SCENARIO.to_owned(),
                |e| e.path.display().to_string(),
            );
        Self {
            logic,
            texture: None,
            live_rect: None,
            screenshot_results: unbounded(),
            commands: Vec::new(),
            applied_zoom: None,
            scenario_path,
            game_path: "saved-game.jsonl".to_owned(),
            typed_dice: String::new(),
            picker_rule_set: None,
            recording_path: String::new(),
            camera_modes: std::collections::BTreeMap::new(),
            first_game: super::first_game::FirstGame::default(),
            first_run: super::first_run::FirstRun::new(),
        }
    }

    /// The app with the first-run walk-through looking for `camera_file`
    /// instead of `calibration/camera.toml` under the working directory.
    pub fn with_camera_file_check(mut self, camera_file: &std::path::Path) -> Self {
        self.first_run = super::first_run::FirstRun::with_camera_file(camera_file);
        self
    }

    /// One UI frame: take what the pipeline has, paint, apply the commands
    /// the painting emitted.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let paint_started = Instant::now();
        self.logic.pump();
        self.first_game.update(&mut self.logic);
        for msg in self.screenshot_results.1.try_iter() {
            self.logic.notice(msg);
        }
        let ctx = ui.ctx().clone();
        if self.applied_zoom != Some(self.logic.large_text) {
            ctx.set_zoom_factor(if self.logic.large_text {
                theme::LARGE_TEXT_ZOOM
            } else {
                1.0
            });
            self.applied_zoom = Some(self.logic.large_text);
        }
        self.shortcuts(ui);
        self.update_texture(&ctx);

        egui::Panel::top("status").show(ui, |ui| self.status_ui(ui));
        if let Some(next) = &self.first_game.next_step {
            let next = next.clone();
            // Two rows, always: the line changes as the game goes on, and a
            // panel that grew or shrank would move the buttons under the
            // player's pointer.
            let rows = 2.0 * ui.text_style_height(&egui::TextStyle::Body)
                + 3.0 * ui.spacing().item_spacing.y;
            egui::Panel::top("next-step")
                .exact_size(rows)
                .show(ui, |ui| {
                    ui.colored_label(theme::NEXT_STEP, next);
                });
        }
        self.first_run.panel_ui(ui, &mut self.logic);
        if let Some((text, reconnect)) = self.logic.source_trouble(Instant::now()) {
            egui::Panel::top("lost").show(ui, |ui| self.lost_ui(ui, &text, reconnect));
        }
        egui::Panel::left("left")
            .default_size(260.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    self.source_ui(ui);
                    ui.separator();
                    self.calibration_ui(ui);
                    ui.separator();
                    self.lens_wizard_ui(ui);
                    ui.separator();
                    self.roster_ui(ui);
                });
            });
        egui::Panel::right("right")
            .default_size(320.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.actions_ui(ui));
            });
        egui::CentralPanel::default().show(ui, |ui| self.views_ui(ui));

        if self.logic.screenshot_requested {
            self.logic.screenshot_requested = false;
            self.request_screenshot(&ctx);
        }
        for cmd in std::mem::take(&mut self.commands) {
            self.logic.apply(cmd);
        }
        self.logic.painted(paint_started, Instant::now());
        if matches!(
            self.logic.status,
            SourceStatus::Live { .. } | SourceStatus::Opening
        ) {
            ctx.request_repaint_after(UI_FRAME_PERIOD);
        }
    }

    fn emit(&mut self, cmd: UiCommand) {
        self.commands.push(cmd);
    }

    fn shortcuts(&mut self, ui: &egui::Ui) {
        // Shortcuts act only when no text field has the keyboard.
        if ui.ctx().egui_wants_keyboard_input() {
            return;
        }
        let undo = ui.input(|i| i.modifiers.command && i.key_pressed(Key::Z));
        if undo {
            self.emit(UiCommand::Undo);
            return;
        }
        let pressed: Vec<Key> = ui.input(|i| {
            [
                Key::Escape,
                Key::L,
                Key::R,
                Key::C,
                Key::P,
                Key::E,
                Key::Enter,
            ]
            .into_iter()
            .filter(|k| i.key_pressed(*k))
            .collect()
        });
        for key in pressed {
            match key {
                Key::E => self.emit(UiCommand::EndPhase),
                Key::Enter => self.emit(UiCommand::Roll),
                Key::Escape => self.emit(UiCommand::ClearSelection),
                Key::L => self.emit(UiCommand::ToggleLargeText),
                Key::R => self.emit(UiCommand::Relock),
                Key::C => self.emit(UiCommand::Reconnect),
                Key::P => self.emit(UiCommand::SaveScreenshot),
                _ => {}
            }
        }
    }

    fn update_texture(&mut self, ctx: &egui::Context) {
        let Some(p) = &self.logic.latest else { return };
        if self
            .texture
            .as_ref()
            .is_some_and(|(seq, _)| *seq == p.frame.seq)
        {
            return;
        }
        let colour = p.preview.clone();
        match &mut self.texture {
            Some((seq, tex)) => {
                tex.set(colour, TextureOptions::LINEAR);
                *seq = p.frame.seq;
            }
            None => {
                let tex = ctx.load_texture("live", colour, TextureOptions::LINEAR);
                self.texture = Some((p.frame.seq, tex));
            }
        }
    }

    fn request_screenshot(&mut self, ctx: &egui::Context) {
        let Some(rect) = self.live_rect else {
            self.logic.notice("no live view to save yet");
            return;
        };
        let dir = self.logic.screenshot_dir.clone();
        let tx = self.screenshot_results.0.clone();
        let ppp = ctx.pixels_per_point();
        let stamp = chrono_like_stamp();
        let ctx2 = ctx.clone();
        ctx.request_screenshot(move |image| {
            let region = image.region(&rect, Some(ppp));
            let msg = match save_png(&dir, &stamp, &region) {
                Ok(path) => format!("saved {}", path.display()),
                Err(e) => format!("screenshot not saved: {e:#}"),
            };
            let _ = tx.send(msg);
            ctx2.request_repaint();
        });
    }

    fn status_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.strong("Spotter");
            ui.separator();
            match &self.logic.status {
                SourceStatus::Opening => {
                    ui.colored_label(theme::STATUS_WARN, "opening source...");
                }
                SourceStatus::Live { source } => {
                    ui.colored_label(theme::STATUS_OK, format!("live: {source}"));
                }
                SourceStatus::Lost { source, .. } => {
                    ui.colored_label(theme::STATUS_ALARM, format!("lost: {source}"));
                }
            }
            if let Some(p) = &self.logic.latest {
                ui.label(format!("frame {}", p.frame.label));
            }
            ui.separator();
            let stats = &self.logic.stats;
            let fps = stats.ui.rate_hz();
            let det = stats.detection.rate_hz();
            let lag = stats.overlay_latency_ms.summary();
            ui.label(format!(
                "UI {} fps | detection {} fps | overlay lag {}",
                fps.map_or("-".into(), |v| format!("{v:.0}")),
                det.map_or("-".into(), |v| format!("{v:.0}")),
                lag.map_or("-".into(), |s| format!(
                    "{:.0} ms (p95 {:.0})",
                    s.median, s.p95
                )),
            ));
            ui.label(format!(
                "frames dropped: {} of {}",
                self.logic.frames_dropped,
                self.logic.frames_dropped + self.logic.frames_shown
            ));
            ui.separator();
            let mut large = self.logic.large_text;
            if ui.toggle_value(&mut large, "Large text (L)").clicked() {
                self.emit(UiCommand::ToggleLargeText);
            }
            if ui.button("Save overlay screenshot (P)").clicked() {
                self.emit(UiCommand::SaveScreenshot);
            }
        });
        if let Some(n) = self.logic.notices.last() {
            ui.small(n.as_str());
        }
    }

    /// What is wrong with the source or its picture, and a reconnect when
    /// it may help.
    fn lost_ui(&mut self, ui: &mut egui::Ui, text: &str, reconnect: bool) {
        ui.horizontal_wrapped(|ui| {
            ui.colored_label(theme::STATUS_ALARM, RichText::new(text).strong());
            if reconnect && ui.button("Reconnect (C)").clicked() {
                self.emit(UiCommand::Reconnect);
            }
        });
    }

    /// Choose the source: a webcam and its mode, or a recording (a folder
    /// of photos or a video file). The game is kept across the switch.
    fn source_ui(&mut self, ui: &mut egui::Ui) {
        egui::CollapsingHeader::new("Source")
            .default_open(false)
            .show(ui, |ui| {
                ui.label(format!("now: {}", self.logic.source_choice.describe()));
                if ui.button("Find webcams").clicked() {
                    self.emit(UiCommand::FindCameras);
                }
                match self.logic.cameras.clone() {
                    None => {}
                    Some(Err(e)) => {
                        ui.colored_label(theme::MARKER_MISSING, format!("webcams: {e}"));
                    }
                    Some(Ok(cams)) if cams.is_empty() => {
                        ui.label("no webcams found: plug one in, then Find webcams");
                    }
                    Some(Ok(cams)) => {
                        for cam in cams {
                            self.camera_row(ui, &cam);
                        }
                    }
                }
                ui.label("Recording (folder of photos or video file):");
                ui.text_edit_singleline(&mut self.recording_path);
                if ui.button("Open recording").clicked() && !self.recording_path.is_empty() {
                    let source = super::logic::recording_source(std::path::Path::new(
                        self.recording_path.trim(),
                    ));
                    self.emit(UiCommand::OpenSource(source));
                }
            });
    }

    fn camera_row(&mut self, ui: &mut egui::Ui, cam: &super::logic::FoundCamera) {
        let chosen = self.camera_modes.get(&cam.index).copied().unwrap_or(0);
        let mode_text = |k: usize| {
            k.checked_sub(1)
                .and_then(|i| cam.modes.get(i))
                .map_or_else(|| "camera default".to_owned(), ToString::to_string)
        };
        ui.horizontal(|ui| {
            ui.label(format!("{}: {}", cam.index, cam.name));
            let mut pick = chosen;
            egui::ComboBox::from_id_salt(("camera-mode", cam.index))
                .selected_text(mode_text(chosen))
                .show_ui(ui, |ui| {
                    for k in 0..=cam.modes.len() {
                        ui.selectable_value(&mut pick, k, mode_text(k));
                    }
                });
            self.camera_modes.insert(cam.index, pick);
            if ui.button("Open").clicked() {
                let mode = pick.checked_sub(1).and_then(|i| cam.modes.get(i)).copied();
                self.emit(UiCommand::OpenSource(SourceChoice::Camera(
                    crate::capture::camera::CameraChoice {
                        index: cam.index,
                        mode,
                    },
                )));
            }
        });
    }

    fn calibration_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Table");
        let Some(p) = &self.logic.latest else {
            ui.label("waiting for the first frame");
            return;
        };
        let lock = p.perception.lock.clone();
        let detector_problem = p.perception.detector_problem.clone();
        for id in &lock.markers_expected {
            let found = lock.markers_found.contains(id);
            let (colour, text) = if found {
                (theme::MARKER_FOUND, format!("marker {id}: found"))
            } else {
                (theme::MARKER_MISSING, format!("marker {id}: not seen"))
            };
            ui.colored_label(colour, text);
        }
        match &lock.locked {
            Some(m) => {
                ui.label(format!(
                    "residual {:.3} in ({:.2} px)",
                    m.residual_in, m.residual_px
                ));
            }
            None => {
                ui.colored_label(theme::STATUS_WARN, "table not locked");
            }
        }
        if let Some(problem) = &lock.problem {
            ui.colored_label(theme::STATUS_WARN, problem.as_str());
        }
        if lock.camera_moved {
            ui.colored_label(
                theme::STATUS_ALARM,
                RichText::new(format!("Camera moved ({:.1} px)", lock.moved_px)).strong(),
            );
            if ui.button("Re-lock table (R)").clicked() {
                self.emit(UiCommand::Relock);
            }
        }
        if let Some(problem) = &detector_problem {
            ui.colored_label(theme::STATUS_WARN, problem.as_str());
        }
    }

    /// The lens step of the calibration wizard: views, coverage, RMS, save.
    fn lens_wizard_ui(&mut self, ui: &mut egui::Ui) {
        egui::CollapsingHeader::new("Lens calibration")
            .default_open(false)
            .show(ui, |ui| {
                self.lens_board_ui(ui);
                let w = &self.logic.lens_wizard;
                ui.small(format!(
                    "Hold {} in view, tilted a different way each time, and spread over the picture.",
                    w.board().describe()
                ));
                ui.label(format!(
                    "Lens views: {} usable of {} (need {})",
                    w.usable_views(),
                    w.views(),
                    w.params.min_views
                ));
                let cover = w.coverage_frac();
                let colour = if cover >= w.params.min_coverage_frac {
                    theme::STATUS_OK
                } else {
                    theme::STATUS_WARN
                };
                ui.colored_label(
                    colour,
                    format!(
                        "Coverage {:.0}% (need {:.0}%)",
                        100.0 * cover,
                        100.0 * w.params.min_coverage_frac
                    ),
                );
                match &w.fit {
                    Some(Ok(f)) => {
                        let ok = f.lens.rms_px <= w.params.max_rms_px;
                        ui.colored_label(
                            if ok { theme::STATUS_OK } else { theme::STATUS_WARN },
                            format!(
                                "Lens RMS {:.3} px over {} views (fx {:.0}, fy {:.0})",
                                f.lens.rms_px,
                                f.views_used,
                                f.lens.fx(),
                                f.lens.fy()
                            ),
                        );
                    }
                    Some(Err(why)) => {
                        ui.colored_label(theme::STATUS_WARN, why.as_str());
                    }
                    None => {}
                }
                if let Some(m) = &w.message {
                    ui.small(m.as_str());
                }
                let busy = w.busy();
                let can_save = matches!(w.fit, Some(Ok(_)));
                let out = w.out_path.display().to_string();
                ui.horizontal_wrapped(|ui| {
                    let text = if busy { "Finding the board..." } else { "Capture board view" };
                    if ui.add_enabled(!busy, egui::Button::new(text)).clicked() {
                        self.emit(UiCommand::CaptureLensView);
                    }
                    if ui
                        .add_enabled(can_save, egui::Button::new(format!("Save lens to {out}")))
                        .clicked()
                    {
                        self.emit(UiCommand::SaveLens);
                    }
                    if ui.button("Start again").clicked() {
                        self.emit(UiCommand::ResetLens);
                    }
                });
            });
    }

    /// The board the lens step looks for, as `--board` names it.
    fn lens_board_ui(&mut self, ui: &mut egui::Ui) {
        let w = &mut self.logic.lens_wizard;
        ui.horizontal(|ui| {
            ui.label("Board:");
            ui.add(egui::TextEdit::singleline(&mut w.board_text).desired_width(170.0))
                .on_hover_text(crate::calibration::board::SPEC_HELP);
            if ui.button("Use").clicked() {
                let spec = w.board_text.clone();
                // The wizard is calibration state, not game state: set here.
                if let Err(e) = w.set_board(&spec) {
                    w.message = Some(e);
                }
            }
        });
    }

    fn roster_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Figures");
        let sel = self.logic.selection;
        let rows: Vec<(u32, String)> = self
            .logic
            .figures()
            .iter()
            .map(|f| (f.id, figure_row(f)))
            .collect();
        if rows.is_empty() {
            ui.label("no figures seen");
        }
        for (id, text) in rows {
            let chosen = sel.actor == Some(id) || sel.target == Some(id);
            if ui.selectable_label(chosen, text).clicked() {
                self.emit(UiCommand::ClickFigure(id));
            }
        }
    }

    /// The game panel, in the order a player uses it every turn: the turn,
    /// the action with its odds and the Roll button (near the top, so it
    /// is on screen whatever the window's height), the roster, the log;
    /// then starting, loading and saving games.
    fn actions_ui(&mut self, ui: &mut egui::Ui) {
        self.game_ui(ui);
        if self.logic.session.is_some() {
            ui.separator();
            self.action_ui(ui);
            ui.separator();
            self.game_roster_ui(ui);
            ui.separator();
            self.log_ui(ui);
        }
        ui.separator();
        self.game_files_ui(ui);
    }

    fn game_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Game");
        if let Some(s) = &self.logic.session {
            ui.label(format!("{} ({})", s.scenario_name, s.game.rules().name()));
            ui.label(RichText::new(s.turn_text()).strong());
            ui.small(format!("autosaved to {}", s.log_path.display()));
            if ui.button("End phase (E)").clicked() {
                self.emit(UiCommand::EndPhase);
            }
        } else {
            ui.label("no game");
        }
    }

    /// New game (rule set, scenario), load and save.
    fn game_files_ui(&mut self, ui: &mut egui::Ui) {
        self.picker_ui(ui);
        ui.horizontal_wrapped(|ui| {
            ui.label("Scenario:");
            ui.text_edit_singleline(&mut self.scenario_path)
                .labelled_by(ui.label("file").id);
        });
        ui.horizontal_wrapped(|ui| {
            if ui.button("New game").clicked() {
                self.emit(UiCommand::NewGame(PathBuf::from(&self.scenario_path)));
            }
        });
        ui.horizontal_wrapped(|ui| {
            ui.label("Game file:");
            ui.text_edit_singleline(&mut self.game_path)
                .labelled_by(ui.label("log").id);
        });
        ui.horizontal_wrapped(|ui| {
            if ui.button("Load game").clicked() {
                self.emit(UiCommand::LoadGame(PathBuf::from(&self.game_path)));
            }
            if ui.button("Save game as").clicked() {
                self.emit(UiCommand::SaveGame(PathBuf::from(&self.game_path)));
            }
        });
    }

    /// The New game picker: a rule set, then one of its scenarios (which
    /// fills in the scenario file).
    fn picker_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.label("Rule set:");
            for name in self.logic.rule_sets.clone() {
                let on = self.picker_rule_set.as_deref() == Some(name.as_str());
                if ui.selectable_label(on, name.as_str()).clicked() {
                    self.picker_rule_set = if on { None } else { Some(name) };
                }
            }
        });
        let shown: Vec<(PathBuf, String)> = self
            .logic
            .scenarios
            .iter()
            .filter(|e| {
                self.picker_rule_set
                    .as_deref()
                    .is_none_or(|r| r == e.rule_set)
            })
            .map(|e| (e.path.clone(), format!("{} ({})", e.name, e.rule_set)))
            .collect();
        for (path, text) in shown {
            let path_text = path.display().to_string();
            let on = self.scenario_path == path_text;
            if ui.selectable_label(on, text).clicked() {
                self.scenario_path = path_text;
            }
        }
    }

    fn game_roster_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Roster");
        let Some(s) = &self.logic.session else { return };
        let state = s.state();
        let rows: Vec<(FigureId, String, String, bool)> = state
            .figures
            .iter()
            .map(|f| {
                let side = state.sides.get(f.side).map_or("-", |x| x.name.as_str());
                let wound = f.wound.map_or(String::new(), |w| format!(", {w:?}"));
                let seen = self
                    .logic
                    .track_of(f.id)
                    .map_or(String::new(), |t| format!(" = {}", figure_name(t)));
                (
                    f.id,
                    f.name.clone(),
                    format!(
                        "{} ({side}, {}, exp {}{wound}){seen}",
                        f.name, f.weapon, f.experience
                    ),
                    s.actor == Some(f.id) || s.target == Some(f.id),
                )
            })
            .collect();
        let mut follow = self.logic.follow_camera;
        if ui
            .checkbox(&mut follow, "Figures follow the camera")
            .clicked()
        {
            self.emit(UiCommand::ToggleFollowCamera);
        }
        let seen_actor = self.logic.selection.actor;
        for (id, name, text, chosen) in rows {
            if ui.selectable_label(chosen, text).clicked() {
                self.emit(UiCommand::ClickGameFigure(id));
            }
            if let Some(track) = self.logic.track_of(id)
                && ui
                    .small_button(format!("unbind {} from {name}", figure_name(track)))
                    .clicked()
            {
                self.emit(UiCommand::Unbind { figure: id });
            }
            // Binding is offered while a seen figure is selected.
            if let Some(track) = seen_actor
                && self.logic.bound(track) != Some(id)
                && ui
                    .small_button(format!("bind {} to {name}", figure_name(track)))
                    .clicked()
            {
                self.emit(UiCommand::Bind { track, figure: id });
            }
        }
    }

    /// The kind buttons for the seen terrain piece chosen on the picture.
    fn seen_terrain_ui(&mut self, ui: &mut egui::Ui) {
        let Some(piece) = &self.logic.terrain_choice else {
            return;
        };
        let c = piece.center_in();
        ui.label(format!(
            "Terrain seen at ({:.0}, {:.0}), {:.0} sq in: what is it?",
            c.x, c.y, piece.area_in2
        ));
        ui.horizontal_wrapped(|ui| {
            for (k, (label, _)) in crate::game::terrain::CHOICES.iter().enumerate() {
                if ui.button(*label).clicked() {
                    self.emit(UiCommand::MarkSeenTerrain(k));
                }
            }
        });
    }

    fn action_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Action");
        if self.logic.session.is_some() {
            self.seen_terrain_ui(ui);
        }
        let Some(s) = &self.logic.session else { return };
        let current = s.action;
        let actor = s.actor.map_or("-".into(), |f| s.name(f));
        let target = s.target.map_or("-".into(), |f| s.name(f));
        let preview = s.preview();
        let labels = s.action_labels();
        ui.horizontal_wrapped(|ui| {
            for (i, label) in labels.into_iter().enumerate() {
                if ui.selectable_label(current == i, label).clicked() {
                    self.emit(UiCommand::SetAction(i));
                }
            }
        });
        ui.label(format!("Actor: {actor}"));
        ui.label(format!("Target: {target}"));
        let Some(p) = preview else {
            ui.label("click an actor, then a target");
            return;
        };
        if let Some(why) = &p.refused {
            ui.colored_label(theme::STATUS_WARN, format!("Not now: {why}"));
        }
        for m in &p.measurements {
            let text = m.to_string();
            if m.too_close_to_call {
                ui.colored_label(
                    theme::TOO_CLOSE_TO_CALL,
                    format!("{text}  TOO CLOSE TO CALL"),
                );
            } else {
                ui.label(text);
            }
        }
        if let (Some(band), Some(needed)) = (&p.band, p.needed) {
            ui.label(
                RichText::new(format!("{band} range: {needed}+ needed"))
                    .strong()
                    .color(theme::band_colour(band_index(band))),
            );
        }
        for o in &p.odds {
            ui.label(format!("{}: {:.1}%", o.name, 100.0 * o.p));
        }
        if p.refused.is_none() {
            ui.horizontal_wrapped(|ui| {
                if ui.button("Roll (Enter)").clicked() {
                    self.emit(UiCommand::Roll);
                }
            });
            ui.horizontal_wrapped(|ui| {
                let label = ui.label("Real dice:");
                ui.text_edit_singleline(&mut self.typed_dice)
                    .labelled_by(label.id);
                if ui.button("Use typed dice").clicked() {
                    self.emit(UiCommand::RollTyped(self.typed_dice.clone()));
                }
            });
        }
    }

    fn log_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Log");
        let Some(s) = &self.logic.session else { return };
        let lines = s.log_lines();
        let can_undo = s.last_played().is_some();
        if can_undo && ui.button("Undo (Ctrl+Z)").clicked() {
            self.emit(UiCommand::Undo);
        }
        for line in lines.iter().rev() {
            ui.label(line.as_str());
        }
    }

    fn views_ui(&mut self, ui: &mut egui::Ui) {
        let avail = ui.available_size();
        let wide = avail.x > avail.y * 1.2;
        let (live_size, map_size) = if wide {
            (
                Vec2::new(avail.x * 0.62, avail.y),
                Vec2::new(avail.x * 0.38 - 8.0, avail.y),
            )
        } else {
            (
                Vec2::new(avail.x, avail.y * 0.6),
                Vec2::new(avail.x, avail.y * 0.4 - 8.0),
            )
        };
        let layout = if wide {
            egui::Layout::left_to_right(egui::Align::Min)
        } else {
            egui::Layout::top_down(egui::Align::Min)
        };
        ui.with_layout(layout, |ui| {
            self.live_view_ui(ui, live_size);
            self.table_view_ui(ui, map_size);
        });
    }

    fn live_view_ui(&mut self, ui: &mut egui::Ui, size: Vec2) {
        let (rect, response) = ui.allocate_exact_size(size, Sense::click());
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 0.0, theme::NO_FRAME);
        let Some(p) = &self.logic.latest else {
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                "no frame yet",
                egui::FontId::proportional(18.0),
                theme::LABEL_TEXT,
            );
            return;
        };
        let (w, h) = p.frame.image.dimensions();
        let scale = (rect.width() / w as f32).min(rect.height() / h as f32);
        let shown = Rect::from_center_size(rect.center(), Vec2::new(w as f32, h as f32) * scale);
        self.live_rect = Some(shown);
        if let Some((_, tex)) = &self.texture {
            painter.image(
                tex.id(),
                shown,
                Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0)),
                Color32::WHITE,
            );
        }
        self.paint_lens_coverage(&painter, shown, [w, h]);
        let lock = &p.perception.lock;
        // Markers as seen.
        for m in &p.perception.markers {
            let pts: Vec<Pos2> = m
                .corners_px
                .iter()
                .map(|c| shown.min + Vec2::new(c.x as f32 + 0.5, c.y as f32 + 0.5) * scale)
                .collect();
            painter.add(egui::Shape::closed_line(
                pts,
                theme::line(theme::MARKER_FOUND),
            ));
        }
        let Some(mapping) = lock.locked.clone() else {
            return;
        };
        // Pixel centres are at integer coordinates; the texture's pixel i
        // spans [i, i+1) in ui terms, so add half a pixel.
        let ui_from_table = move |t: Point2<f64>| {
            let px = mapping.pixel_from_table(t);
            shown.min + Vec2::new(px.x as f32 + 0.5, px.y as f32 + 0.5) * scale
        };
        if let Some(sess) = &self.logic.session {
            overlay::terrain(
                &painter,
                &ui_from_table,
                &sess.state().terrain,
                self.label_size(),
            );
        }
        let unmarked = self.logic.unmarked_terrain();
        let chosen = self.logic.terrain_choice.as_ref().and_then(|c| {
            unmarked
                .iter()
                .position(|t| t.contains(c.center_in()) || c.contains(t.center_in()))
        });
        overlay::seen_terrain(
            &painter,
            &ui_from_table,
            &unmarked,
            chosen,
            self.label_size(),
        );
        self.paint_rule_shapes(&painter, &ui_from_table);
        self.paint_overlay(&painter, &ui_from_table, lock);
        if response.clicked()
            && let Some(pos) = response.interact_pointer_pos()
        {
            self.click_at(&ui_from_table, pos);
        }
    }

    fn table_view_ui(&mut self, ui: &mut egui::Ui, size: Vec2) {
        let (rect, response) = ui.allocate_exact_size(size, Sense::click());
        let painter = ui.painter_at(rect);
        let Some(p) = &self.logic.latest else { return };
        let lock = p.perception.lock.clone();
        let [w_in, d_in] = lock.table_in;
        if w_in <= 0.0 || d_in <= 0.0 {
            return;
        }
        let scale = (rect.width() / w_in as f32).min(rect.height() / d_in as f32) * 0.96;
        let table = Rect::from_center_size(
            rect.center(),
            Vec2::new(w_in as f32 * scale, d_in as f32 * scale),
        );
        painter.rect_filled(table, 0.0, theme::TABLE_MAT);
        // A grid line every 6 inches, for judging distances by eye.
        const GRID_IN: f64 = 6.0;
        let to_screen = move |t: Point2<f64>| {
            Pos2::new(
                table.min.x + t.x as f32 * scale,
                table.max.y - t.y as f32 * scale,
            )
        };
        let mut x = GRID_IN;
        while x < w_in {
            painter.line_segment(
                [
                    to_screen(Point2::new(x, 0.0)),
                    to_screen(Point2::new(x, d_in)),
                ],
                egui::Stroke::new(1.0, theme::GRID_LINE),
            );
            x += GRID_IN;
        }
        let mut y = GRID_IN;
        while y < d_in {
            painter.line_segment(
                [
                    to_screen(Point2::new(0.0, y)),
                    to_screen(Point2::new(w_in, y)),
                ],
                egui::Stroke::new(1.0, theme::GRID_LINE),
            );
            y += GRID_IN;
        }
        painter.rect_stroke(
            table,
            0.0,
            theme::line(theme::TABLE_OUTLINE),
            egui::StrokeKind::Outside,
        );
        if let Some(sess) = &self.logic.session {
            overlay::terrain(
                &painter,
                &to_screen,
                &sess.state().terrain,
                self.label_size(),
            );
        }
        self.paint_overlay(&painter, &to_screen, &lock);
        self.paint_game(&painter, &to_screen);
        if response.clicked()
            && let Some(pos) = response.interact_pointer_pos()
        {
            self.click_at(&to_screen, pos);
        }
    }

    /// The game's figures where the game has them, the selected figure's
    /// ranges to every enemy in band colours, and the last action's result.
    fn paint_game(&self, painter: &egui::Painter, to_screen: ScreenFromTable) {
        let Some(s) = &self.logic.session else { return };
        let label_size = if self.logic.large_text {
            theme::LABEL_SIZE_LARGE
        } else {
            theme::LABEL_SIZE
        };
        let state = s.state();
        let pos = |id: FigureId| state.figure(id).map(|f| f.placement.center_in_table);
        let has_shapes = s.actor.is_some_and(|a| !s.overlays(a).is_empty());
        if has_shapes {
            self.paint_rule_shapes(painter, to_screen);
        } else if let Some(actor) = s.actor
            && let Some(from) = pos(actor)
        {
            for r in s.enemy_ranges(actor) {
                let Some(to) = pos(r.target) else { continue };
                let colour = if r.too_close_to_call {
                    theme::TOO_CLOSE_TO_CALL
                } else {
                    r.band
                        .as_deref()
                        .map_or(theme::band_colour(3), |b| theme::band_colour(band_index(b)))
                };
                overlay::segment(painter, to_screen, from, to, theme::line(colour));
                let mid = Point2::from((from.coords + to.coords) / 2.0);
                let mut text = r.range_text();
                if let Some(b) = &r.band {
                    text = format!("{text} {b}");
                }
                if r.too_close_to_call {
                    text.push_str(" TOO CLOSE");
                }
                overlay::label(painter, to_screen(mid), &text, label_size, colour);
            }
        }
        for f in &state.figures {
            let det = crate::vision::Detection {
                center_in_table: f.placement.center_in_table,
                facing_deg: Some(f.placement.facing_deg),
                edge: experience_edge(f.experience, state.sides.get(f.side).map(|x| x.kind)),
                base: if f.mount_level.is_some() {
                    crate::vision::BaseKind::Mounted
                } else {
                    crate::vision::BaseKind::Foot
                },
                confidence: 1.0,
                position_sigma_in: f.placement.sigma_in,
                appearance: None,
                side: Default::default(),
            };
            if s.actor == Some(f.id) {
                overlay::highlight(painter, to_screen, &det, theme::SELECTED);
            }
            if s.target == Some(f.id) {
                overlay::highlight(painter, to_screen, &det, theme::TARGET);
            }
            let chosen = s.actor == Some(f.id) || s.target == Some(f.id);
            overlay::figure(painter, to_screen, &det, &f.name, label_size, chosen);
        }
        if let Some(last) = s.last_played() {
            let at = s.action_target(&last.command).and_then(pos);
            if let Some(at) = at {
                let text = s.describe_result(&last.events);
                overlay::label(
                    painter,
                    to_screen(at) - Vec2::new(0.0, 3.0 * label_size),
                    &text,
                    label_size,
                    theme::LAST_ACTION,
                );
            }
        }
    }

    /// The lens wizard's coverage cells over the live view, while it has
    /// views of this frame size.
    fn paint_lens_coverage(&self, painter: &egui::Painter, shown: Rect, size: [u32; 2]) {
        let w = &self.logic.lens_wizard;
        if w.views() == 0 || w.image_size() != Some(size) {
            return;
        }
        let grid = w.params.coverage_grid.max(1);
        let cell = shown.size() / grid as f32;
        for (i, covered) in w.coverage_cells().into_iter().enumerate() {
            let (cx, cy) = (i as u32 % grid, i as u32 / grid);
            let r = Rect::from_min_size(
                shown.min + Vec2::new(cx as f32 * cell.x, cy as f32 * cell.y),
                cell,
            );
            if covered {
                painter.rect_filled(r.shrink(1.0), 0.0, theme::COVERAGE_CELL);
            }
            painter.rect_stroke(
                r,
                0.0,
                egui::Stroke::new(1.0, theme::GRID_LINE),
                egui::StrokeKind::Inside,
            );
        }
    }

    /// What the rule set draws around the game's selected figure, from
    /// where the game has the figures.
    fn paint_rule_shapes(&self, painter: &egui::Painter, to_screen: ScreenFromTable) {
        let Some(s) = &self.logic.session else { return };
        let Some(actor) = s.actor else { return };
        let shapes = s.overlays(actor);
        let state = s.state();
        let place = |id: FigureId| state.figure(id).map(|f| f.placement.center_in_table);
        overlay::rule_shapes(painter, to_screen, &shapes, &place, self.label_size());
    }

    fn label_size(&self) -> f32 {
        if self.logic.large_text {
            theme::LABEL_SIZE_LARGE
        } else {
            theme::LABEL_SIZE
        }
    }

    /// A click picks the nearest seen figure, or else the nearest game
    /// figure not bound to a seen one.
    fn click_at(&mut self, to_screen: ScreenFromTable, pos: Pos2) {
        // Seen figures are ids 0..; game figures are put after them.
        const GAME_ID_BASE: u32 = 1 << 30;
        let mut centres: Vec<(u32, Point2<f64>)> = self
            .logic
            .figures()
            .iter()
            .map(|f| (f.id, f.detection.center_in_table))
            .collect();
        if let Some(s) = &self.logic.session {
            centres.extend(
                s.state()
                    .figures
                    .iter()
                    .filter(|f| self.logic.track_of(f.id).is_none())
                    .map(|f| (GAME_ID_BASE + f.id.0, f.placement.center_in_table)),
            );
        }
        // Seen terrain pieces are picked by their name's place, after the
        // figures (a figure in a wood is the figure).
        const TERRAIN_ID_BASE: u32 = 1 << 29;
        let pieces: Vec<(u32, Point2<f64>)> = self
            .logic
            .unmarked_terrain()
            .iter()
            .zip(TERRAIN_ID_BASE..)
            .map(|(t, id)| (id, t.center_in()))
            .collect();
        let picked = overlay::pick(to_screen, &centres, pos, PICK_RADIUS_PT)
            .or_else(|| overlay::pick(to_screen, &pieces, pos, 2.0 * PICK_RADIUS_PT));
        match picked {
            Some(id) if (TERRAIN_ID_BASE..GAME_ID_BASE).contains(&id) => {
                self.emit(UiCommand::ChooseSeenTerrain(
                    (id - TERRAIN_ID_BASE) as usize,
                ));
            }
            Some(id) if id >= GAME_ID_BASE => {
                self.emit(UiCommand::ClickGameFigure(FigureId(id - GAME_ID_BASE)));
            }
            Some(id) => self.emit(UiCommand::ClickFigure(id)),
            None => self.emit(UiCommand::ClearSelection),
        }
    }

    fn paint_overlay(
        &self,
        painter: &egui::Painter,
        to_screen: ScreenFromTable,
        _lock: &LockSummary,
    ) {
        let label_size = if self.logic.large_text {
            theme::LABEL_SIZE_LARGE
        } else {
            theme::LABEL_SIZE
        };
        let sel = self.logic.selection;
        if let Some(actor) = sel.actor.and_then(|id| self.logic.figure(id)) {
            for other in self.logic.figures() {
                if other.id == actor.id {
                    continue;
                }
                let colour = if sel.target == Some(other.id) {
                    theme::TARGET
                } else {
                    theme::band_colour(theme::BAND_COLOURS.len() - 1)
                };
                overlay::segment(
                    painter,
                    to_screen,
                    actor.detection.center_in_table,
                    other.detection.center_in_table,
                    theme::line(colour),
                );
                let mid = Point2::from(
                    (actor.detection.center_in_table.coords
                        + other.detection.center_in_table.coords)
                        / 2.0,
                );
                let range_in =
                    (actor.detection.center_in_table - other.detection.center_in_table).norm();
                overlay::label(
                    painter,
                    to_screen(mid),
                    &format!("{range_in:.1}\""),
                    label_size,
                    colour,
                );
            }
            overlay::highlight(painter, to_screen, &actor.detection, theme::SELECTED);
        }
        if let Some(target) = sel.target.and_then(|id| self.logic.figure(id)) {
            overlay::highlight(painter, to_screen, &target.detection, theme::TARGET);
        }
        for f in self.logic.figures() {
            let chosen = sel.actor == Some(f.id) || sel.target == Some(f.id);
            overlay::figure(
                painter,
                to_screen,
                &f.detection,
                &seen_figure_name(f),
                label_size,
                // A question is always shown.
                chosen || f.ambiguous_with.is_some(),
            );
        }
    }
}

/// The edge colour a figure's experience is painted in (`TABLE_KIT.md`:
/// 1 novice green, 2-4 trained white, 5 veteran blue, 6 red).
fn experience_edge(
    experience: u8,
    _side: Option<crate::game::SideKind>,
) -> crate::vision::EdgeColour {
    use crate::vision::EdgeColour;
    match experience {
        0 | 1 => EdgeColour::Green,
        2..=4 => EdgeColour::White,
        5 => EdgeColour::Blue,
        _ => EdgeColour::Red,
    }
}

/// The figure's display name until a roster binds one.
fn figure_name(id: u32) -> String {
    format!("#{id}")
}

/// A figure's name on the table picture: a figure the tracker cannot tell
/// from another asks which one it is.
fn seen_figure_name(f: &SeenFigure) -> String {
    match f.ambiguous_with {
        Some(other) => {
            let me = figure_name(f.id);
            format!("{me} ? which one: {me} or {}", figure_name(other))
        }
        None => figure_name(f.id),
    }
}

/// An uncertain figure's row says so, with its confidence (it is drawn
/// dashed on the view and never bound or followed by itself).
fn figure_row(f: &SeenFigure) -> String {
    let d = &f.detection;
    format!(
        "{} {} {} ({:.1}, {:.1}){}{}",
        seen_figure_name(f),
        d.edge.name(),
        d.base.name(),
        d.center_in_table.x,
        d.center_in_table.y,
        d.facing_deg
            .map_or(String::new(), |a| format!(" {a:.0}\u{b0}")),
        if super::overlay::is_certain(d) {
            String::new()
        } else {
            format!(" uncertain {:.2}", d.confidence)
        },
    )
}

/// Seconds since the Unix epoch, for unique screenshot names.
fn chrono_like_stamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    format!("{secs}")
}

fn save_png(dir: &std::path::Path, stamp: &str, img: &egui::ColorImage) -> anyhow::Result<PathBuf> {
    use anyhow::Context as _;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join(format!("overlay-{stamp}.png"));
    let [w, h] = img.size;
    let rgba: Vec<u8> = img.pixels.iter().flat_map(|c| c.to_array()).collect();
    let buf = image::RgbaImage::from_raw(
        u32::try_from(w).context("width")?,
        u32::try_from(h).context("height")?,
        rgba,
    )
    .context("screenshot buffer size")?;
    buf.save(&path)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

impl eframe::App for SpotterApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }
}
