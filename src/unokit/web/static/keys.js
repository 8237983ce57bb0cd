// The letter or digit a table shortcut reads from a key press, whatever the keyboard's
// layout: the key's own character when it is a Latin letter or a digit (so QWERTY,
// AZERTY and the rest keep their printed letters), else the key's place on the board
// (`code`: KeyR is "r" on a Russian or Georgian layout too, where the same key types
// "к" or "რ"). Any other key comes back as it is (Enter, ArrowLeft, "?").
//
//   shortcutKey({ key: "R", code: "KeyR" }) -> "r"
//   shortcutKey({ key: "к", code: "KeyR" }) -> "r"
//   shortcutKey({ key: "1", code: "Digit1" }) -> "1"
//   shortcutKey({ key: "Enter", code: "Enter" }) -> "Enter"
export function shortcutKey(ev) {
  const key = ev.key || "";
  if (/^[A-Za-z0-9]$/.test(key)) return key.toLowerCase();
  const code = /^(?:Key([A-Z])|Digit([0-9]))$/.exec(ev.code || "");
  if (key.length === 1 && code) return (code[1] || code[2]).toLowerCase();
  return key;
}
