//go:build desktop && linux && cgo

// The main window as GTK sees it: found among the toplevels (Wails keeps
// its GtkWindow to itself), placed where it was last time, and watched for
// moves and resizes so its geometry can be remembered (window_gtk.go).
// Every function here runs on the GTK main loop.

#include <gtk/gtk.h>
#include <stdlib.h>
#include <string.h>
#include "window_gtk.h"

extern void clawbooWindowConfigured(gint x, gint y, gint width, gint height, gboolean maximized);
extern void clawbooWindowPlace(GdkRectangle *areas, gint n, gint *x, gint *y, gint *width, gint *height);
extern void clawbooEditCommand(gboolean redo);

static GtkWindow *main_window = NULL;

// clawboo_main_window is Wails' window: the toplevel titled "Clawboo" that
// is not a dialog (our popups are GtkMessageDialogs), or NULL before it
// exists.
GtkWindow *clawboo_main_window(void) {
	if (main_window != NULL) {
		return main_window;
	}
	GList *all = gtk_window_list_toplevels();
	for (GList *l = all; l != NULL; l = l->next) {
		GtkWindow *w = GTK_WINDOW(l->data);
		if (GTK_IS_DIALOG(w) || gtk_window_get_window_type(w) != GTK_WINDOW_TOPLEVEL) {
			continue;
		}
		const char *title = gtk_window_get_title(w);
		if (title != NULL && strcmp(title, "Clawboo") == 0) {
			main_window = w;
			g_object_add_weak_pointer(G_OBJECT(w), (gpointer *)&main_window);
			break;
		}
	}
	g_list_free(all);
	return main_window;
}

// report tells Go where the window is, unless it is hidden or minimised
// (then its geometry says nothing about where a person put it).
static void report(GtkWindow *w) {
	GdkWindow *gw = gtk_widget_get_window(GTK_WIDGET(w));
	if (gw == NULL || !gtk_widget_get_mapped(GTK_WIDGET(w))) {
		return;
	}
	GdkWindowState st = gdk_window_get_state(gw);
	if (st & (GDK_WINDOW_STATE_ICONIFIED | GDK_WINDOW_STATE_WITHDRAWN | GDK_WINDOW_STATE_FULLSCREEN)) {
		return;
	}
	gint x, y, width, height;
	gtk_window_get_position(w, &x, &y);
	gtk_window_get_size(w, &width, &height);
	clawbooWindowConfigured(x, y, width, height, (st & GDK_WINDOW_STATE_MAXIMIZED) != 0);
}

static gboolean on_configure(GtkWidget *widget, GdkEvent *event, gpointer data) {
	report(GTK_WINDOW(widget));
	return FALSE;
}

static gboolean on_state(GtkWidget *widget, GdkEventWindowState *event, gpointer data) {
	report(GTK_WINDOW(widget));
	return FALSE;
}

// on_key gives the page undo and redo. WebKitGTK (GTK 3) binds the
// clipboard keys and select-all in every field itself but has no key for
// undo (GtkTextView, whose bindings it borrows, has no undo in GTK 3):
// Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y run the page's own editing commands.
static gboolean on_key(GtkWidget *widget, GdkEventKey *event, gpointer data) {
	GdkModifierType mods = event->state & gtk_accelerator_get_default_mod_mask();
	guint key = gdk_keyval_to_lower(event->keyval);
	if (key == GDK_KEY_z && mods == GDK_CONTROL_MASK) {
		clawbooEditCommand(FALSE);
		return TRUE;
	}
	if ((key == GDK_KEY_z && mods == (GDK_CONTROL_MASK | GDK_SHIFT_MASK)) || (key == GDK_KEY_y && mods == GDK_CONTROL_MASK)) {
		clawbooEditCommand(TRUE);
		return TRUE;
	}
	return FALSE;
}

typedef struct {
	gint x, y, width, height;
	gboolean maximized, restore;
} place_req;

static gboolean place(gpointer data) {
	place_req *r = data;
	GtkWindow *w = clawboo_main_window();
	if (w == NULL) {
		free(r);
		return G_SOURCE_REMOVE;
	}
	if (r->restore) {
		GdkDisplay *d = gtk_widget_get_display(GTK_WIDGET(w));
		gint n = gdk_display_get_n_monitors(d);
		GdkRectangle *areas = calloc(n > 0 ? n : 1, sizeof(GdkRectangle));
		for (gint i = 0; i < n; i++) {
			gdk_monitor_get_workarea(gdk_display_get_monitor(d, i), &areas[i]);
		}
		gint x = r->x, y = r->y, width = r->width, height = r->height;
		clawbooWindowPlace(areas, n, &x, &y, &width, &height);
		free(areas);
		gtk_window_resize(w, width, height);
		gtk_window_move(w, x, y);
		if (r->maximized) {
			gtk_window_maximize(w);
		}
	}
	g_signal_connect(w, "configure-event", G_CALLBACK(on_configure), NULL);
	g_signal_connect(w, "window-state-event", G_CALLBACK(on_state), NULL);
	g_signal_connect(w, "key-press-event", G_CALLBACK(on_key), NULL);
	free(r);
	return G_SOURCE_REMOVE;
}

// Wails centres the window from an idle callback queued before the main
// loop starts; queueing once more from the loop puts the placement after it.
static gboolean place_later(gpointer data) {
	g_idle_add(place, data);
	return G_SOURCE_REMOVE;
}

// clawboo_window_start places the window (when restore is set) at the
// remembered geometry, fitted to today's screens, then watches it and
// gives it the undo keys.
void clawboo_window_start(gint x, gint y, gint width, gint height, gboolean maximized, gboolean restore) {
	place_req *r = malloc(sizeof(place_req));
	r->x = x;
	r->y = y;
	r->width = width;
	r->height = height;
	r->maximized = maximized;
	r->restore = restore;
	g_idle_add(place_later, r);
}
