// The docs page: its live examples are the elements themselves.
import './styles/page.css';
import './elements/index';
