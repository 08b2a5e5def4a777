//! What a rule set says about its own actions: each action's name, the
//! figures or units it takes, its other parameters and where in the turn it
//! is allowed. The app's action panel, `spotter actions` and
//! `spotter resolve --rule-action` are built from these descriptions, so a
//! fifth rule set gets its panel and its command line by describing its
//! actions, not by editing the UI.
//!
//! # Conventions
//! Parameter names are those of the action's JSON parameters (the typed
//! action structs of `rules::<set>::action`); figures, units and sides are
//! named by their scenario names; points are table inches.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{Command, FigureId, GameState, RuleSet};

/// One action of a rule set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActionSpec {
    /// The name scripts and the command line use (`fire`, `close-combat`).
    pub name: &'static str,
    /// The action panel's label, when the action is taken by clicking an
    /// actor and a target ("Unit fires"); several labels may share a name
    /// with different preset parameters ("Fire", "Snap fire").
    pub label: &'static str,
    /// What it does, in a line (a rule set may add to it from its data).
    pub doc: Cow<'static, str>,
    pub params: Vec<ParamSpec>,
    /// The phases (by the rule set's names) in which it may be taken; empty:
    /// whenever the rules allow (card-driven rule sets).
    pub phases: Vec<String>,
    /// Taken with no figures to open a side's activation (a card drawn):
    /// the first-game screen takes it when nothing else can be done yet.
    pub opens_activation: bool,
}

/// One parameter of an action.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
    /// Filled from the figures the player picked, or given.
    pub role: Role,
    /// Must be given (no default in the rules).
    pub required: bool,
    /// The value the action panel gives it (`"snap": true` for snap fire).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preset: Option<Value>,
    pub doc: &'static str,
}

/// The kind of value a parameter takes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ParamKind {
    /// A figure's name.
    Figure,
    /// A list of figures' names (picked: the figure alone).
    Figures,
    /// The figures of the picked figure's unit still in the fight (he
    /// alone outside a unit); given: a list of figures' names.
    UnitFigures,
    /// A figure by his number in the roster (Stand To!'s commands).
    FigureNumber,
    /// Figures by number (picked: the figure alone).
    FigureNumbers,
    /// A unit's name.
    Unit,
    /// A side's name.
    Side,
    /// A point, table inches `[x, y]`.
    Point,
    /// A list of points.
    Points,
    /// A number.
    Number,
    /// Yes or no.
    Flag,
    /// One of these words.
    Word(Vec<&'static str>),
    /// A list of words.
    Words,
    /// Free text (a formation's name, an order).
    Text,
    /// A JSON value shaped as the parameter's text says; an example.
    Json(&'static str),
}

/// Where a parameter's value comes from in the action panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The figure the player clicked first (or his unit, his side, his
    /// unit's figures, by the parameter's kind).
    Actor,
    /// The figure clicked second (or his unit ...).
    Target,
    /// Typed by the player or preset.
    Given,
}

impl ParamSpec {
    /// A parameter filled from the actor.
    pub fn actor(name: &'static str, kind: ParamKind, doc: &'static str) -> Self {
        Self::new(name, kind, Role::Actor, true, doc)
    }

    /// A parameter filled from the target.
    pub fn target(name: &'static str, kind: ParamKind, doc: &'static str) -> Self {
        Self::new(name, kind, Role::Target, true, doc)
    }

    /// A parameter the player must give.
    pub fn given(name: &'static str, kind: ParamKind, doc: &'static str) -> Self {
        Self::new(name, kind, Role::Given, true, doc)
    }

    /// A parameter with a default in the rules.
    pub fn optional(name: &'static str, kind: ParamKind, doc: &'static str) -> Self {
        Self::new(name, kind, Role::Given, false, doc)
    }

    /// A yes/no parameter with a default in the rules (no).
    pub fn flag(name: &'static str, doc: &'static str) -> Self {
        Self::optional(name, ParamKind::Flag, doc)
    }

    /// A yes/no parameter the action panel sets to `value` (one panel
    /// label per value: "Fire" and "Snap fire").
    pub fn preset_flag(name: &'static str, doc: &'static str, value: bool) -> Self {
        Self::flag(name, doc).preset(Value::Bool(value))
    }

    /// A move's path: `path_in`, the table points after the start.
    pub fn path_in() -> Self {
        Self::given("path_in", ParamKind::Points, "points after the start")
    }

    /// This parameter with the value the action panel gives it.
    #[must_use]
    pub fn preset(mut self, value: Value) -> Self {
        self.preset = Some(value);
        self
    }

    fn new(
        name: &'static str,
        kind: ParamKind,
        role: Role,
        required: bool,
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind,
            role,
            required,
            preset: None,
            doc,
        }
    }
}

impl ActionSpec {
    /// An action with no phase limit and no parameters yet.
    pub fn new(name: &'static str, label: &'static str, doc: &'static str) -> Self {
        Self {
            name,
            label,
            doc: Cow::Borrowed(doc),
            params: Vec::new(),
            phases: Vec::new(),
            opens_activation: false,
        }
    }

    /// This action opens a side's activation (see
    /// [`ActionSpec::opens_activation`]).
    #[must_use]
    pub fn opening(mut self) -> Self {
        self.opens_activation = true;
        self
    }

    /// This action with one more parameter.
    #[must_use]
    pub fn param(mut self, p: ParamSpec) -> Self {
        self.params.push(p);
        self
    }

    /// This action, allowed only in these phases.
    #[must_use]
    pub fn in_phases(mut self, phases: &[&str]) -> Self {
        self.phases = phases.iter().map(|p| (*p).to_owned()).collect();
        self
    }

    /// Taken by clicking an actor and then a target (the action panel).
    pub fn takes_actor_and_target(&self) -> bool {
        let has = |r| self.params.iter().any(|p| p.role == r);
        has(Role::Actor) && has(Role::Target)
    }

    /// The parameters for `actor` acting on `target`: the picked figures
    /// (or their units, sides) and the presets. `None` when a picked figure
    /// has no unit where the action takes a unit, or a required given
    /// parameter has no preset.
    pub fn params_for(
        &self,
        state: &GameState,
        actor: FigureId,
        target: FigureId,
    ) -> Option<Value> {
        self.params_with(state, Some(actor), Some(target))
    }

    /// The parameters of an action that takes no figures: its presets
    /// (`None` when it needs a figure or a given value).
    pub fn preset_params(&self, state: &GameState) -> Option<Value> {
        self.params_with(state, None, None)
    }

    fn params_with(
        &self,
        state: &GameState,
        actor: Option<FigureId>,
        target: Option<FigureId>,
    ) -> Option<Value> {
        let mut out = Map::new();
        for p in &self.params {
            let value = match p.role {
                Role::Actor => picked(state, actor?, &p.kind)?,
                Role::Target => picked(state, target?, &p.kind)?,
                Role::Given => match &p.preset {
                    Some(v) => v.clone(),
                    None if p.required => return None,
                    None => continue,
                },
            };
            out.insert(p.name.to_owned(), value);
        }
        Some(Value::Object(out))
    }

    /// The parameters typed on a command line: the `given` object, then for
    /// what it leaves out the picked `actor` and `target` (their names, units
    /// ... by the parameter's kind) and the presets. A required parameter
    /// still missing is an error naming it and how to give it.
    pub fn params_from(
        &self,
        state: &GameState,
        actor: Option<FigureId>,
        target: Option<FigureId>,
        given: &Map<String, Value>,
    ) -> Result<Value, String> {
        let mut out = given.clone();
        let mut missing = Vec::new();
        for p in self.params.iter().filter(|p| !given.contains_key(p.name)) {
            let value = match p.role {
                Role::Actor => actor.and_then(|a| picked(state, a, &p.kind)),
                Role::Target => target.and_then(|t| picked(state, t, &p.kind)),
                Role::Given => p.preset.clone(),
            };
            match value {
                Some(v) => {
                    out.insert(p.name.to_owned(), v);
                }
                None if p.required => missing.push(p),
                None => {}
            }
        }
        if missing.is_empty() {
            return Ok(Value::Object(out));
        }
        let says: Vec<String> = missing
            .iter()
            .map(|p| {
                let how = match p.role {
                    Role::Actor => " (the actor's)",
                    Role::Target => " (the target's)",
                    Role::Given => "",
                };
                format!("`{}` ({}: {}){how}", p.name, kind_name(&p.kind), p.doc)
            })
            .collect();
        Err(format!("`{}` needs {}", self.name, says.join(", ")))
    }

    /// A one-line usage, for `spotter actions`: the name, then each
    /// parameter as `name: kind` (`[name: kind]` when optional).
    pub fn usage(&self) -> String {
        let mut s = self.name.to_owned();
        for p in &self.params {
            let kind = kind_name(&p.kind);
            if p.required {
                s.push_str(&format!(" {}: {kind}", p.name));
            } else {
                s.push_str(&format!(" [{}: {kind}]", p.name));
            }
        }
        s
    }
}

/// The name of a parameter kind, as `spotter actions` prints it.
pub fn kind_name(kind: &ParamKind) -> String {
    match kind {
        ParamKind::Figure => "figure".into(),
        ParamKind::Figures | ParamKind::UnitFigures => "figures".into(),
        ParamKind::FigureNumber => "figure number".into(),
        ParamKind::FigureNumbers => "figure numbers".into(),
        ParamKind::Unit => "unit".into(),
        ParamKind::Side => "side".into(),
        ParamKind::Point => "x,y".into(),
        ParamKind::Points => "points".into(),
        ParamKind::Number => "number".into(),
        ParamKind::Flag => "yes/no".into(),
        ParamKind::Word(w) => w.join("|"),
        ParamKind::Words => "words".into(),
        ParamKind::Text => "text".into(),
        ParamKind::Json(example) => format!("json, e.g. {example}"),
    }
}

/// The value of a picked figure for a parameter of this kind.
fn picked(state: &GameState, id: FigureId, kind: &ParamKind) -> Option<Value> {
    let f = state.figure(id)?;
    let unit = || state.units.iter().find(|u| u.figures.contains(&id));
    Some(match kind {
        ParamKind::Figure => json!(f.name),
        ParamKind::Unit => json!(unit()?.name),
        ParamKind::Side => json!(state.sides.get(f.side)?.name),
        ParamKind::Figures => json!([f.name]),
        ParamKind::FigureNumber => json!(id),
        ParamKind::FigureNumbers => json!([id]),
        // His unit's figures still in the fight, or he alone.
        ParamKind::UnitFigures => match unit() {
            Some(u) => json!(
                u.figures
                    .iter()
                    .filter_map(|m| state.figure(*m))
                    .filter(|m| m.active())
                    .map(|m| m.name.clone())
                    .collect::<Vec<_>>()
            ),
            None => json!([f.name]),
        },
        ParamKind::Point => json!([f.placement.center_in_table.x, f.placement.center_in_table.y]),
        _ => return None,
    })
}

/// The labels of the rule set's actions taken by clicking an actor and a
/// target, in the rule set's order.
pub fn target_labels<R: RuleSet + ?Sized>(rules: &R) -> Vec<&'static str> {
    rules
        .actions()
        .iter()
        .filter(|a| a.takes_actor_and_target())
        .map(|a| a.label)
        .collect()
}

/// The rule set's action called `name_or_label`: by its panel label
/// ("Snap fire"), else the first action of that name (`fire`).
pub fn find_action(actions: &[ActionSpec], name_or_label: &str) -> Option<ActionSpec> {
    actions
        .iter()
        .find(|a| a.label.eq_ignore_ascii_case(name_or_label))
        .or_else(|| actions.iter().find(|a| a.name == name_or_label))
        .cloned()
}

/// The command of the panel action labelled `label`, by `actor` at
/// `target`, built from the rule set's description and read by its own
/// parser (`None`: no such action, or the figures cannot take it).
pub fn target_command<R: RuleSet + ?Sized>(
    rules: &R,
    state: &GameState,
    label: &str,
    actor: FigureId,
    target: FigureId,
) -> Option<Command> {
    let spec = rules
        .actions()
        .into_iter()
        .find(|a| a.label == label && a.takes_actor_and_target())?;
    let params = spec.params_for(state, actor, target)?;
    rules.parse_action(spec.name, &params).ok()
}

/// A sample value of a parameter kind (tests: every description must be
/// readable by the rule set's own parser).
pub fn sample(kind: &ParamKind) -> Value {
    match kind {
        ParamKind::Figure | ParamKind::Unit | ParamKind::Side => json!("someone"),
        ParamKind::Figures | ParamKind::UnitFigures => json!(["someone"]),
        ParamKind::FigureNumber => json!(0),
        ParamKind::FigureNumbers => json!([0]),
        ParamKind::Point => json!([1.0, 2.0]),
        ParamKind::Points => json!([[1.0, 2.0]]),
        ParamKind::Number => json!(1),
        ParamKind::Flag => json!(true),
        ParamKind::Word(w) => json!(w.first().copied().unwrap_or("word")),
        ParamKind::Words => json!(["word"]),
        ParamKind::Text => json!("text"),
        ParamKind::Json(example) => serde_json::from_str(example).unwrap_or(Value::Null),
    }
}
