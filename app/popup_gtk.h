// Declarations of popup_gtk.c (built with the desktop tag on Linux).
#include <glib.h>
void clawboo_popup_show(guint id, const char *title, const char *heading, const char *body);
void clawboo_popup_withdraw(guint id);
