// Declarations of popup_gtk.c (built with the desktop tag on Linux).
#include <glib.h>
// CLAWBOO_RESPONSE_ALWAYS is the response of "Allow for this session" (GTK
// leaves positive response ids to the application).
#define CLAWBOO_RESPONSE_ALWAYS 1
void clawboo_popup_show(guint id, const char *title, const char *heading, const char *body, gboolean always);
void clawboo_popup_withdraw(guint id);
