//! Soldiers in Time's actions as the player's menu shows them: what each
//! takes and in which phases, one function per action, in the menu's order.

use crate::rules::describe::{ActionSpec, ParamKind, ParamSpec};

/// The phases in which a leader gives orders and men act on them.
const ORDER_PHASES: [&str; 4] = [
    "command",
    "movement-horses",
    "movement-men",
    "movement-vehicles",
];

/// The movement phases.
const MOVE_PHASES: [&str; 3] = ["movement-horses", "movement-men", "movement-vehicles"];

/// Every Soldiers in Time action.
pub fn actions() -> Vec<ActionSpec> {
    vec![
        fire("Fire", "an aimed shot at the target", false),
        fire("Snap fire", "a snap shot at the target", true),
        melee(),
        horse_impact(),
        rally(),
        activate(),
        load_gun(),
        movement(),
        volley(),
        at_figure_or_point(
            "artillery",
            "Gun fires",
            "a gun fires at a figure or a point",
            actor("gun", "the gun"),
        ),
        at_figure_or_point(
            "grenade",
            "Grenade",
            "a grenade thrown at a figure or a point",
            actor("thrower", "the thrower"),
        ),
        follow_through(),
        morale_check(),
        individual(),
        reload(),
        leave_melee(),
        spot(),
    ]
}

/// The figure who acts, by name.
fn actor(name: &'static str, doc: &'static str) -> ParamSpec {
    ParamSpec::actor(name, ParamKind::Figure, doc)
}

fn facing() -> ParamSpec {
    ParamSpec::optional("facing_deg", ParamKind::Number, "facing at the end")
}

/// A shooting-phase action by `by` at a figure or a point on the table.
fn at_figure_or_point(
    name: &'static str,
    label: &'static str,
    doc: &'static str,
    by: ParamSpec,
) -> ActionSpec {
    ActionSpec::new(name, label, doc)
        .param(by)
        .param(ParamSpec::optional(
            "target",
            ParamKind::Figure,
            "the figure aimed at",
        ))
        .param(ParamSpec::optional(
            "at_in",
            ParamKind::Point,
            "or a point on the table",
        ))
        .in_phases(&["shooting"])
}

/// An aimed or a snap shot at the clicked target.
fn fire(label: &'static str, doc: &'static str, snap: bool) -> ActionSpec {
    ActionSpec::new("fire", label, doc)
        .param(actor("shooter", "the man who fires"))
        .param(ParamSpec::target(
            "target",
            ParamKind::Figure,
            "the figure aimed at",
        ))
        .param(ParamSpec::preset_flag("snap", "a snap shot", snap))
        .in_phases(&["shooting"])
}

fn melee() -> ActionSpec {
    ActionSpec::new("melee", "Melee", "the actor fights the target")
        .param(actor("a", "the one who starts the melee"))
        .param(ParamSpec::target("b", ParamKind::Figure, "his opponent"))
        .param(ParamSpec::optional(
            "parry",
            ParamKind::Figures,
            "who parries (house: +2, a win turns the blow)",
        ))
        .in_phases(&["melee"])
}

fn horse_impact() -> ActionSpec {
    ActionSpec::new(
        "horse-impact",
        "Horse impact",
        "a rider rides down a man on foot",
    )
    .param(actor("rider", "the rider"))
    .param(ParamSpec::target(
        "footman",
        ParamKind::Figure,
        "the man on foot",
    ))
    .in_phases(&["melee"])
}

fn rally() -> ActionSpec {
    ActionSpec::new("rally", "Rally", "routed figures try to rally")
        .param(ParamSpec::optional(
            "figures",
            ParamKind::Figures,
            "default: every routed figure",
        ))
        .in_phases(&["rally"])
}

fn activate() -> ActionSpec {
    ActionSpec::new("activate", "Activate", "a leader gives an order to his men")
        .param(actor("leader", "the leader"))
        .param(ParamSpec::given(
            "order",
            ParamKind::Word(vec![
                "forward-march",
                "formed-charge",
                "volley-fire",
                "independent-fire",
                "follow-him",
                "individual",
            ]),
            "the order",
        ))
        .param(ParamSpec::given(
            "men",
            ParamKind::Figures,
            "the men it is for",
        ))
        .in_phases(&ORDER_PHASES)
}

fn load_gun() -> ActionSpec {
    let mut phases = vec!["rally"];
    phases.extend(ORDER_PHASES);
    ActionSpec::new("load-gun", "Load gun", "the crew loads a gun")
        .param(actor("gun", "the gun"))
        .param(ParamSpec::optional(
            "ammo",
            ParamKind::Word(vec!["ball", "grapeshot"]),
            "cannons",
        ))
        .in_phases(&phases)
}

fn movement() -> ActionSpec {
    ActionSpec::new("move", "Move", "a figure moves along a path")
        .param(actor("figure", "the figure that moves"))
        .param(ParamSpec::path_in())
        .param(facing())
        .param(ParamSpec::flag("run", "running (formed charge)"))
        .param(ParamSpec::flag("charge", "charging into melee"))
        .param(ParamSpec::flag(
            "backwards",
            "backwards, keeping his facing",
        ))
        .param(ParamSpec::optional(
            "speed",
            ParamKind::Text,
            "a rider's horse speed",
        ))
        .in_phases(&MOVE_PHASES)
}

fn volley() -> ActionSpec {
    ActionSpec::new(
        "volley",
        "Volley",
        "the men fire a volley, each at the nearest enemy",
    )
    .param(ParamSpec::actor(
        "men",
        ParamKind::UnitFigures,
        "the men who fire",
    ))
    .in_phases(&["shooting"])
}

fn follow_through() -> ActionSpec {
    ActionSpec::new(
        "follow-through",
        "Follow through",
        "the melee winner moves up",
    )
    .param(actor("figure", "the winner"))
    .param(ParamSpec::given("to_in", ParamKind::Point, "where he goes"))
    .param(facing())
    .in_phases(&["follow-through"])
}

fn morale_check() -> ActionSpec {
    ActionSpec::new(
        "morale-check",
        "Morale check",
        "a morale test the camera cannot see",
    )
    .param(actor("figure", "the figure that tests"))
    .param(ParamSpec::given("reason", ParamKind::Text, "why he tests"))
}

fn individual() -> ActionSpec {
    ActionSpec::new(
        "individual",
        "Individual action",
        "a man out of command range rolls on the chart to act alone",
    )
    .param(actor("figure", "the man"))
    .in_phases(&ORDER_PHASES)
}

fn reload() -> ActionSpec {
    ActionSpec::new(
        "reload",
        "Reload",
        "a figure rolls his reload d10; a loaded shot keeps",
    )
    .param(actor("figure", "the man who reloads"))
    .in_phases(&["shooting"])
}

/// 11, spotting a hidden enemy (house).
fn spot() -> ActionSpec {
    ActionSpec::new(
        "spot",
        "Spot",
        "a man looks for a hidden enemy within 12 in",
    )
    .param(actor("observer", "the man who looks"))
    .param(ParamSpec::given(
        "target",
        ParamKind::Figure,
        "the hidden enemy",
    ))
    .in_phases(&["shooting"])
}

/// 5.5, Leaving Melee: any phase, on a passed activation check.
fn leave_melee() -> ActionSpec {
    ActionSpec::new(
        "leave-melee",
        "Leave melee",
        "a man in contact walks away on a passed activation check",
    )
    .param(actor("figure", "the man who leaves"))
    .param(ParamSpec::given("to_in", ParamKind::Point, "where he goes"))
    .param(facing())
}
