"""A small real desktop program for the desktop tools' tests: a button and an entry.

It prints what happens to stdout, one line each: its widgets' screen geometry when shown
(``button X Y W H``, ``entry X Y W H``), ``clicked`` when the button is pressed and
``entry: TEXT`` whenever the entry's text changes.
"""

import tkinter as tk

root = tk.Tk()
root.title("agent-tui test app")
root.geometry("360x200+100+120")
root.configure(bg="#d9d9d9")
button = tk.Button(root, text="Press Me", command=lambda: print("clicked", flush=True))
button.pack(pady=20)
text = tk.StringVar()
entry = tk.Entry(root, textvariable=text)
entry.pack()
text.trace_add("write", lambda *_: print(f"entry: {text.get()}", flush=True))


def report() -> None:
    for name, widget in (("button", button), ("entry", entry)):
        print(f"{name} {widget.winfo_rootx()} {widget.winfo_rooty()} {widget.winfo_width()} "
              f"{widget.winfo_height()}", flush=True)


root.after(300, report)
root.mainloop()
