// Declarations of window_gtk.c (built with the desktop tag on Linux).
#include <gtk/gtk.h>
GtkWindow *clawboo_main_window(void);
void clawboo_window_start(gint x, gint y, gint width, gint height, gboolean maximized, gboolean restore);
