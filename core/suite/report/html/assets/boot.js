window.SUITE = {episodes: {}, waiting: {}};
