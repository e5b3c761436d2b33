//go:build desktop && linux && cgo

// Native approval popups: a GtkMessageDialog per request with "Deny" and
// "Allow" buttons (mnemonics Alt+D / Alt+A, Deny the default), and "Allow
// for this session" (Alt+S) where the agent offers it, shown and
// withdrawn from the GTK main loop. Text is always passed through "%s", so
// an agent's text is never read as a printf format (the trap of Wails' own
// message dialog, platform.md §4.1), and the dialog uses no markup.

#include <gtk/gtk.h>
#include <stdlib.h>
#include <string.h>
#include "popup_gtk.h"
#include "window_gtk.h"

extern void clawbooPopupAnswered(guint id, gint response);

typedef struct {
	guint id;
	char *title;
	char *heading;
	char *body;
	gboolean always;
} popup_req;

// The dialog on screen and its request id (main-loop thread only).
static GtkWidget *current_dialog = NULL;
static guint current_id = 0;

static void on_response(GtkDialog *dialog, gint response, gpointer data) {
	guint id = GPOINTER_TO_UINT(data);
	if (current_dialog == GTK_WIDGET(dialog)) {
		current_dialog = NULL;
		current_id = 0;
	}
	gtk_widget_destroy(GTK_WIDGET(dialog));
	clawbooPopupAnswered(id, response);
}

static gboolean show_popup(gpointer data) {
	popup_req *r = data;
	if (current_dialog != NULL) { // never two at once: the older is withdrawn
		g_signal_handlers_disconnect_by_func(current_dialog, G_CALLBACK(on_response), GUINT_TO_POINTER(current_id));
		gtk_widget_destroy(current_dialog);
		current_dialog = NULL;
	}
	GtkWidget *d = gtk_message_dialog_new(NULL, 0, GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE, "%s", r->heading);
	gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(d), "%s", r->body);
	gtk_window_set_title(GTK_WINDOW(d), r->title);
	gtk_dialog_add_button(GTK_DIALOG(d), "_Deny", GTK_RESPONSE_REJECT);
	if (r->always) {
		gtk_dialog_add_button(GTK_DIALOG(d), "Allow for this _session", CLAWBOO_RESPONSE_ALWAYS);
	}
	gtk_dialog_add_button(GTK_DIALOG(d), "_Allow", GTK_RESPONSE_ACCEPT);
	gtk_dialog_set_default_response(GTK_DIALOG(d), GTK_RESPONSE_REJECT);
	// The main window's transient (a window manager keeps it above its
	// parent and centres it there) and kept above, so raising the main
	// window never buries a question. A hidden main window (in the tray)
	// is no parent: the popup then stands alone, centred on the screen.
	GtkWindow *parent = clawboo_main_window();
	if (parent != NULL && gtk_widget_get_visible(GTK_WIDGET(parent))) {
		gtk_window_set_transient_for(GTK_WINDOW(d), parent);
		gtk_window_set_position(GTK_WINDOW(d), GTK_WIN_POS_CENTER_ON_PARENT);
	} else {
		gtk_window_set_position(GTK_WINDOW(d), GTK_WIN_POS_CENTER);
	}
	gtk_window_set_keep_above(GTK_WINDOW(d), TRUE);
	g_signal_connect(d, "response", G_CALLBACK(on_response), GUINT_TO_POINTER(r->id));
	current_dialog = d;
	current_id = r->id;
	gtk_widget_show_all(d);
	gtk_window_present(GTK_WINDOW(d));
	free(r->title);
	free(r->heading);
	free(r->body);
	free(r);
	return G_SOURCE_REMOVE;
}

static gboolean withdraw_popup(gpointer data) {
	guint id = GPOINTER_TO_UINT(data);
	if (current_dialog != NULL && current_id == id) {
		g_signal_handlers_disconnect_by_func(current_dialog, G_CALLBACK(on_response), GUINT_TO_POINTER(id));
		gtk_widget_destroy(current_dialog);
		current_dialog = NULL;
		current_id = 0;
	}
	return G_SOURCE_REMOVE;
}

void clawboo_popup_show(guint id, const char *title, const char *heading, const char *body, gboolean always) {
	popup_req *r = malloc(sizeof(popup_req));
	r->id = id;
	r->always = always;
	r->title = strdup(title);
	r->heading = strdup(heading);
	r->body = strdup(body);
	g_idle_add(show_popup, r); // g_idle_add is thread-safe; GTK calls run on the main loop
}

void clawboo_popup_withdraw(guint id) {
	g_idle_add(withdraw_popup, GUINT_TO_POINTER(id));
}
