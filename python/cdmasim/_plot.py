"""What every cdmasim figure shares: matplotlib with the Agg backend, and one
way to label, save and record a figure."""


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def finish(plt, fig, ax, ylabel, title, path, written, xlabel="time (s)"):
    """Label the axes, save the figure as PNG and remember the file."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)
