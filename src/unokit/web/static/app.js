export const hello = () => _("Play now");
