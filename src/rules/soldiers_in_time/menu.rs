//! Soldiers in Time's actions as the player's menu shows them: what each
//! takes and in which phases.

use serde_json::json;

use crate::rules::describe::{ActionSpec, ParamKind, ParamSpec};

/// Every Soldiers in Time action.
pub fn actions() -> Vec<ActionSpec> {
    let figure = |name, doc| ParamSpec::actor(name, ParamKind::Figure, doc);
    let target = || ParamSpec::target("target", ParamKind::Figure, "the figure aimed at");
    let at = || ParamSpec::optional("at_in", ParamKind::Point, "or a point on the table");
    let facing = || ParamSpec::optional("facing_deg", ParamKind::Number, "facing at the end");
    vec![
        ActionSpec::new("fire", "Fire", "an aimed shot at the target")
            .param(figure("shooter", "the man who fires"))
            .param(target())
            .param(ParamSpec::optional("snap", ParamKind::Flag, "a snap shot").preset(json!(false)))
            .in_phases(&["shooting"]),
        ActionSpec::new("fire", "Snap fire", "a snap shot at the target")
            .param(figure("shooter", "the man who fires"))
            .param(target())
            .param(ParamSpec::optional("snap", ParamKind::Flag, "a snap shot").preset(json!(true)))
            .in_phases(&["shooting"]),
        ActionSpec::new("melee", "Melee", "the actor fights the target")
            .param(figure("a", "the one who starts the melee"))
            .param(ParamSpec::target("b", ParamKind::Figure, "his opponent"))
            .in_phases(&["melee"]),
        ActionSpec::new(
            "horse-impact",
            "Horse impact",
            "a rider rides down a man on foot",
        )
        .param(figure("rider", "the rider"))
        .param(ParamSpec::target(
            "footman",
            ParamKind::Figure,
            "the man on foot",
        ))
        .in_phases(&["melee"]),
        ActionSpec::new("rally", "Rally", "routed figures try to rally")
            .param(ParamSpec::optional(
                "figures",
                ParamKind::Figures,
                "default: every routed figure",
            ))
            .in_phases(&["rally"]),
        ActionSpec::new("activate", "Activate", "a leader gives an order to his men")
            .param(figure("leader", "the leader"))
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
            .in_phases(&[
                "command",
                "movement-horses",
                "movement-men",
                "movement-vehicles",
            ]),
        ActionSpec::new("load-gun", "Load gun", "the crew loads a gun")
            .param(figure("gun", "the gun"))
            .param(ParamSpec::optional(
                "ammo",
                ParamKind::Word(vec!["ball", "grapeshot"]),
                "cannons",
            ))
            .in_phases(&[
                "rally",
                "command",
                "movement-horses",
                "movement-men",
                "movement-vehicles",
            ]),
        ActionSpec::new("move", "Move", "a figure moves along a path")
            .param(figure("figure", "the figure that moves"))
            .param(ParamSpec::given(
                "path_in",
                ParamKind::Points,
                "points after the start",
            ))
            .param(facing())
            .param(ParamSpec::optional(
                "run",
                ParamKind::Flag,
                "running (formed charge)",
            ))
            .param(ParamSpec::optional(
                "charge",
                ParamKind::Flag,
                "charging into melee",
            ))
            .param(ParamSpec::optional(
                "speed",
                ParamKind::Text,
                "a rider's horse speed",
            ))
            .in_phases(&["movement-horses", "movement-men", "movement-vehicles"]),
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
        .in_phases(&["shooting"]),
        ActionSpec::new(
            "artillery",
            "Gun fires",
            "a gun fires at a figure or a point",
        )
        .param(figure("gun", "the gun"))
        .param(ParamSpec::optional(
            "target",
            ParamKind::Figure,
            "the figure aimed at",
        ))
        .param(at())
        .in_phases(&["shooting"]),
        ActionSpec::new(
            "grenade",
            "Grenade",
            "a grenade thrown at a figure or a point",
        )
        .param(figure("thrower", "the thrower"))
        .param(ParamSpec::optional(
            "target",
            ParamKind::Figure,
            "the figure aimed at",
        ))
        .param(at())
        .in_phases(&["shooting"]),
        ActionSpec::new(
            "follow-through",
            "Follow through",
            "the melee winner moves up",
        )
        .param(figure("figure", "the winner"))
        .param(ParamSpec::given("to_in", ParamKind::Point, "where he goes"))
        .param(facing())
        .in_phases(&["follow-through"]),
        ActionSpec::new(
            "morale-check",
            "Morale check",
            "a morale test the camera cannot see",
        )
        .param(figure("figure", "the figure that tests"))
        .param(ParamSpec::given("reason", ParamKind::Text, "why he tests")),
        ActionSpec::new(
            "individual",
            "Individual action",
            "a man out of command range rolls on the chart to act alone",
        )
        .param(figure("figure", "the man"))
        .in_phases(&[
            "command",
            "movement-horses",
            "movement-men",
            "movement-vehicles",
        ]),
        ActionSpec::new(
            "reload",
            "Reload",
            "a figure rolls his reload d10; a loaded shot keeps",
        )
        .param(figure("figure", "the man who reloads"))
        .in_phases(&["shooting"]),
        leave_melee(),
    ]
}

/// 5.5, Leaving Melee: any phase, on a passed activation check.
fn leave_melee() -> ActionSpec {
    ActionSpec::new(
        "leave-melee",
        "Leave melee",
        "a man in contact walks away on a passed activation check",
    )
    .param(ParamSpec::actor(
        "figure",
        ParamKind::Figure,
        "the man who leaves",
    ))
    .param(ParamSpec::given("to_in", ParamKind::Point, "where he goes"))
    .param(ParamSpec::optional(
        "facing_deg",
        ParamKind::Number,
        "facing at the end",
    ))
}
