// Placeholder so the target builds; the app-side library is written on branch appclient.
enum JouleApplicationPlaceholder {}
