//! Helpers for the app's kittest files.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use movescope::app::MovescopeApp;

/// Focuses the field labelled `label`, selects what it holds and types `text` over it (not
/// yet confirmed: no Enter).
pub fn retype(h: &mut Harness<'static, MovescopeApp>, label: &str, text: &str) {
    h.get_by_label(label).click();
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(1);
    h.get_by_label(label).type_text(text);
    h.run_steps(1);
}

/// [`retype`], then Enter: the field takes the number.
pub fn type_number(h: &mut Harness<'static, MovescopeApp>, label: &str, text: &str) {
    retype(h, label, text);
    h.key_press(egui::Key::Enter);
    h.run_steps(2);
}
